/**
 * The real `leasehold-server` CLI as a plain `node` child (not in process: SIGKILL and exit codes
 * are the point), started from source with tsx, as `pnpm start` runs it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A running (or exited) CLI process. */
export interface CliProcess {
  readonly child: ChildProcess;
  /** Everything it printed so far, stdout and stderr together. */
  output(): string;
  /** Its exit code (`null` when a signal ended it). */
  readonly exited: Promise<number | null>;
  /** `http://127.0.0.1:PORT`, once it printed that it listens (rejects if it exits first or within `ms`). */
  listening(ms?: number): Promise<string>;
  /** SIGKILL, and wait for the exit. */
  kill(): Promise<void>;
  /** SIGTERM (SIGKILL after 10 s), and wait for the exit. */
  stop(): Promise<void>;
}

/** How to start it beyond its arguments: as another user, or under a given umask (through `sh -c 'umask …; exec node …'`, same pid). */
export interface CliSpawnOptions {
  uid?: number;
  gid?: number;
  /** An octal umask such as `'022'`. */
  umask?: string;
}

/** Spawns `leasehold-server ...args`. */
export function spawnCli(args: readonly string[], env: Record<string, string> = {}, options: CliSpawnOptions = {}): CliProcess {
  const command = [process.execPath, '--import', 'tsx', 'packages/server/src/cli.ts', ...args];
  const [file, ...argv] = options.umask === undefined ? command : ['/bin/sh', '-c', `umask ${options.umask} && exec "$@"`, 'sh', ...command];
  const child = spawn(file!, argv, {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
    uid: options.uid,
    gid: options.gid,
  });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const ended = () => child.exitCode !== null || child.signalCode !== null;
  const signal = async (name: NodeJS.Signals) => {
    if (ended()) return;
    child.kill(name);
    await exited;
  };
  return {
    child,
    output: () => out,
    exited,
    listening(ms = 30_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`not listening within ${ms} ms:\n${out}`)), ms);
        const check = () => {
          const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
          if (match?.[1]) {
            clearTimeout(timer);
            resolve(match[1]);
          }
        };
        child.stdout!.on('data', check);
        child.stderr!.on('data', check);
        check();
        void exited.then((code) => {
          clearTimeout(timer);
          reject(new Error(`exited (${code}) before listening:\n${out}`));
        });
      });
    },
    kill: () => signal('SIGKILL'),
    async stop() {
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await signal('SIGTERM');
      clearTimeout(timer);
    },
  };
}
