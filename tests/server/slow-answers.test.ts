/**
 * What waits that is not the database's own work never holds a transaction or a connection: an
 * injected latency fault is waited after the unit committed (the write is done and visible, an
 * unrelated request answers meanwhile, a repeat under the same key is in flight until the answer
 * is out, then replays), and a slow
 * client's body is read before anything is opened. The same answers on every store.
 */
import { connect } from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, expectError, expectStatus, startServer, stopServers, type TestServer } from '../support/leasehold-harness.js';

afterEach(stopServers);

// The first server of a worker loads its store (PGlite's WebAssembly on that project): not inside a test's time.
beforeAll(async () => {
  await startServer();
  await stopServers();
}, 120_000);

/** A `sleep` whose waits end only when the test says so (and which tells when one began). */
function heldSleep(): { sleep: (ms: number) => Promise<void>; started: Promise<number>; release: () => void } {
  let began!: (ms: number) => void;
  let release!: () => void;
  const started = new Promise<number>((resolve) => (began = resolve));
  const held = new Promise<void>((resolve) => (release = resolve));
  return { sleep: (ms) => (began(ms), held), started, release };
}

const titles = async (h: TestServer): Promise<string[]> => {
  const list = await h.call('listTasks', { query: { limit: 100 } });
  expectStatus(list, 200);
  return (list.body.data as { title: string }[]).map((task) => task.title);
};

describe('a latency fault', () => {
  it('waits after the commit: the task is visible and another request answers while its answer waits', async () => {
    const wait = heldSleep();
    const h = await startServer({ sleep: wait.sleep });
    await h.control.injectFault({ operationId: 'createTask', latencyMs: 11_000, times: 1 });
    const creating = h.call('createTask', { json: { title: 'slow answer' }, idempotencyKey: 'slow-1' });
    expect(await wait.started).toBe(11_000);
    // While the answer waits: the write is committed and the store serves others.
    expect(await titles(h)).toEqual(['slow answer']);
    // A repeat under the same key is still in flight while the answer waits (the memory store's answer), then replays.
    expectError(await h.call('createTask', { json: { title: 'slow answer' }, idempotencyKey: 'slow-1' }), 409, 'idempotency_in_flight');
    wait.release();
    const answer = await creating;
    expectStatus(answer, 201);
    const retry = await h.call('createTask', { json: { title: 'slow answer' }, idempotencyKey: 'slow-1' });
    expectStatus(retry, 201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(answer.body.id).toBe(retry.body.id);
    expect(await titles(h)).toEqual(['slow answer']);
  });

  it('with a dropped answer: the write is committed, the connection is cut after the wait', async () => {
    const wait = heldSleep();
    const h = await startServer({ sleep: wait.sleep });
    await h.control.injectFault({ operationId: 'createTask', latencyMs: 4_000, dropResponse: true, times: 1 });
    const creating = h.send('createTask', { json: { title: 'dropped' } }).then(
      () => 'answered',
      () => 'dropped',
    );
    await wait.started;
    expect(await titles(h)).toEqual(['dropped']);
    wait.release();
    expect(await creating).toBe('dropped');
  });
});

describe('a slow client', () => {
  it('holds nothing while its body arrives: other requests answer, and its write lands once the body is whole', async () => {
    const h = await startServer();
    const url = new URL(h.origin);
    const body = JSON.stringify({ title: 'slow body' });
    const socket = connect(Number(url.port), url.hostname);
    const answered = new Promise<string>((resolve, reject) => {
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString('utf8')));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(
      `POST /v1/tasks HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${ADMIN}\r\nContent-Type: application/json\r\n` +
        `Idempotency-Key: slow-body-1\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body.slice(0, 5)}`,
    );
    // The body is half sent: the server answers others meanwhile, and nothing is written yet.
    expect(await titles(h)).toEqual([]);
    socket.write(body.slice(5));
    expect((await answered).split('\r\n')[0]).toBe('HTTP/1.1 201 Created');
    expect(await titles(h)).toEqual(['slow body']);
  });
});
