// Runs an example (examples/<name>/src/main.ts) the way its README says — a plain `node` process
// (tsx for TypeScript) against a reference server — so process-lifetime behaviour (exiting when
// done, SIGTERM) is real, which it is not inside vitest's worker.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Leasehold } from '@leasehold/client';
import { createLeaseholdServer, listen, type LeaseholdServer, type NodeListener } from '@leasehold/server';
import { afterAll, beforeAll } from 'vitest';

/** A reference server on 127.0.0.1, port 0 (real clock: the examples run in real time). */
export async function startReferenceServer(): Promise<{ server: LeaseholdServer; listener: NodeListener }> {
  const server = createLeaseholdServer();
  const listener = await listen(server, { port: 0, host: '127.0.0.1' });
  return { server, listener };
}

/** The reference server of an example's suite, and a client of it (`lh`) to set up and check. */
export interface ExampleWorld {
  readonly server: LeaseholdServer;
  /** `http://127.0.0.1:PORT`, what the example gets as `LEASEHOLD_URL`. */
  readonly url: string;
  readonly lh: Leasehold;
}

/**
 * Starts a reference server and a client for the calling suite (`beforeAll`) and closes both
 * (`afterAll`); the world's fields are readable once the suite's tests run.
 */
export function exampleWorld(): ExampleWorld {
  let started: { server: LeaseholdServer; listener: NodeListener; lh: Leasehold } | undefined;
  const get = () => {
    if (started === undefined) throw new Error('exampleWorld() is read before its beforeAll ran');
    return started;
  };
  beforeAll(async () => {
    const { server, listener } = await startReferenceServer();
    started = { server, listener, lh: new Leasehold({ baseUrl: listener.url, apiKey: 'lh_test_admin' }) };
  });
  afterAll(async () => {
    await started?.lh.close();
    await started?.listener.close();
  });
  return {
    get server() {
      return get().server;
    },
    get url() {
      return get().listener.url;
    },
    get lh() {
      return get().lh;
    },
  };
}

/** A running example: its output so far, a wait for a line, and its exit. */
export interface ExampleProcess {
  readonly child: ChildProcess;
  output(): string;
  /** Resolves when the output (stdout and stderr) matches `pattern`; rejects after `timeoutMs` or on exit. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** Resolves with the exit code (or signal) once the process ends; rejects after `timeoutMs`. */
  exited(timeoutMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `node --import tsx src/main.ts` in `examples/<name>`, with `env` added. */
export function runExample(name: string, env: Record<string, string>): ExampleProcess {
  const cwd = fileURLToPath(new URL(`../../examples/${name}/`, import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const listeners = new Set<() => void>();
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  const onData = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    for (const listener of listeners) listener();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  return {
    child,
    output: () => output,
    waitFor(pattern, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(output);
          if (match === null) return;
          done();
          resolve(match);
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`examples/${name} printed nothing matching ${pattern} within ${timeoutMs} ms:\n${output}`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        void exit.then(() => {
          check();
          if (listeners.has(check)) {
            done();
            reject(new Error(`examples/${name} exited before printing ${pattern}:\n${output}`));
          }
        });
        check();
      });
    },
    async exited(timeoutMs = 30_000) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`examples/${name} did not exit within ${timeoutMs} ms:\n${output}`)), timeoutMs);
      });
      try {
        return await Promise.race([exit, timeout]);
      } finally {
        clearTimeout(timer);
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
    },
  };
}
