/**
 * SIGTERM drains the CLI (docs/operating.md, "Graceful shutdown"), in a real `leasehold-server`
 * child process on the project's store: a keep-alive connection busy at SIGTERM gets its answer
 * with `Connection: close` and is closed; an idle one is closed at once; a new connection during
 * `--shutdown-delay` is served with `Connection: close`; a slow client still sending its request
 * when the grace period ends is cut; and the process exits 0, within delay + grace (+1 s).
 */
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnCli, type CliProcess } from '../support/cli-process.js';
import { ADMIN, SPACE } from '../support/leasehold-harness.js';
import { cliStoreArgs } from '../support/test-store.js';

/** One parsed HTTP/1.1 answer read off a raw socket. */
interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * A raw HTTP/1.1 connection, so the test decides exactly when each byte goes out (fetch would
 * pool, retry and hide the connection). Answers are parsed by `Content-Length`; `100 Continue`
 * is an answer of its own.
 */
class RawConnection {
  readonly socket: Socket;
  #buffer = '';
  #waiters: (() => void)[] = [];
  /** Resolves with `performance.now()` when the server closed the connection. */
  readonly closed: Promise<number>;

  constructor(port: number) {
    this.socket = connect(port, '127.0.0.1');
    this.socket.setEncoding('utf8');
    this.socket.on('data', (chunk: string) => {
      this.#buffer += chunk;
      for (const wake of this.#waiters.splice(0)) wake();
    });
    this.socket.on('error', () => {});
    this.closed = new Promise((resolve) =>
      this.socket.once('close', () => {
        resolve(performance.now());
        for (const wake of this.#waiters.splice(0)) wake();
      }),
    );
  }

  send(text: string): void {
    this.socket.write(text);
  }

  /** The next whole answer (rejects if the connection closes first). */
  async answer(): Promise<RawAnswer> {
    for (let turns = 0; turns < 10_000; turns++) {
      const head = this.#buffer.indexOf('\r\n\r\n');
      if (head !== -1) {
        const [statusLine, ...lines] = this.#buffer.slice(0, head).split('\r\n');
        const headers: Record<string, string> = {};
        for (const line of lines) headers[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
        const length = Number(headers['content-length'] ?? 0);
        if (this.#buffer.length >= head + 4 + length) {
          const body = this.#buffer.slice(head + 4, head + 4 + length);
          this.#buffer = this.#buffer.slice(head + 4 + length);
          return { status: Number(statusLine!.split(' ')[1]), headers, body };
        }
      }
      if (this.socket.destroyed) throw new Error(`the connection closed before a whole answer: ${JSON.stringify(this.#buffer)}`);
      await new Promise<void>((wake) => this.#waiters.push(wake));
    }
    throw new Error('no answer');
  }
}

function get(path: string): string {
  return `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ADMIN}\r\n\r\n`;
}

const running: CliProcess[] = [];
const disposals: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((cli) => cli.kill()));
  for (const dispose of disposals.splice(0)) await dispose();
});

/** Resolves once the process printed `text` (it logs `draining` when it handled SIGTERM). */
async function printed(cli: CliProcess, text: string): Promise<void> {
  await expect.poll(() => cli.output().includes(text), { timeout: 10_000, interval: 10 }).toBe(true);
}

// A CLI child from source (tsx) on a SQL store can take tens of seconds to listen on a busy machine.
describe('SIGTERM drains the CLI and it always exits', { timeout: 90_000 }, () => {
  it('answers a busy keep-alive connection with Connection: close, closes idle ones, cuts a slow client after the grace, exits 0', async () => {
    const store = await cliStoreArgs();
    disposals.push(store.dispose);
    const delayMs = 1500;
    const graceMs = 1500;
    const cli = spawnCli(['--port', '0', '--shutdown-delay', `${delayMs}ms`, ...store.args], { LEASEHOLD_SHUTDOWN_GRACE: `${graceMs}ms` });
    running.push(cli);
    const url = new URL(await cli.listening(75_000));
    const port = Number(url.port);
    const list = `/v1/spaces/${SPACE}/claims`;

    // busy: one answer kept alive, then a second request whose body waits (the server read its
    // headers: it sent 100 Continue), so it is in flight when SIGTERM arrives.
    const busy = new RawConnection(port);
    busy.send(get(list));
    const first = await busy.answer();
    expect(first.status).toBe(200);
    expect(first.headers.connection).toBe('keep-alive');
    const body = JSON.stringify({ title: 'in flight at SIGTERM' });
    busy.send(
      `POST /v1/tasks HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ADMIN}\r\nIdempotency-Key: drain-1\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\n\r\n`,
    );
    expect((await busy.answer()).status).toBe(100);
    // idle: answered and kept alive, nothing in flight.
    const idle = new RawConnection(port);
    idle.send(get(list));
    expect((await idle.answer()).headers.connection).toBe('keep-alive');
    // slow: its request is in flight (100 Continue) and its body never comes.
    const slow = new RawConnection(port);
    slow.send(`POST /v1/tasks HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ADMIN}\r\nContent-Type: application/json\r\nContent-Length: 100\r\nExpect: 100-continue\r\n\r\n`);
    expect((await slow.answer()).status).toBe(100);

    const signalled = performance.now();
    cli.child.kill('SIGTERM');
    await printed(cli, '"msg":"draining"');

    // The idle connection is closed by the server, long before the process exits.
    await idle.closed;
    // The busy one gets its answer, with Connection: close, and is closed after it.
    busy.send(body);
    const inFlight = await busy.answer();
    expect(inFlight.status).toBe(201);
    expect(inFlight.headers.connection).toBe('close');
    await busy.closed;
    // A new connection during the delay is still served (the balancer may not know yet), once.
    const late = new RawConnection(port);
    late.send(get(list));
    const lateAnswer = await late.answer();
    expect(lateAnswer.status).toBe(200);
    expect(lateAnswer.headers.connection).toBe('close');
    await late.closed;

    // The slow client is cut when the grace ends (never before: timers never fire early), and the process exits 0.
    const cutAt = await slow.closed;
    expect(cutAt - signalled).toBeGreaterThanOrEqual(delayMs + graceMs - 50);
    const code = await Promise.race([cli.exited, new Promise<string>((resolve) => setTimeout(() => resolve('still running'), 20_000))]);
    expect(code).toBe(0);
    // The bound: delay + grace + 1 s for the store to close (generous slack for a loaded machine).
    expect(performance.now() - signalled).toBeLessThan(delayMs + graceMs + 1000 + 8000);
    expect(cli.output()).toMatch(/"cut":1/);
    expect(cli.output()).toMatch(/"msg":"stopped"/);
  });

  it('exits at once after the delay when no connection is open, however long the grace', async () => {
    const cli = spawnCli(['--port', '0', '--shutdown-grace', '10m']);
    running.push(cli);
    const url = await cli.listening(75_000);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const signalled = performance.now();
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
    // fetch's pooled keep-alive connection was idle: closed at SIGTERM, not kept for the grace.
    expect(performance.now() - signalled).toBeLessThan(8000);
  });
});
