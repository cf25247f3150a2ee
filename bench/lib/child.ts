import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { buildIfStale } from '../../scripts/pack-packages.mjs';

/** The monorepo root (bench/lib/../..). */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

const children = new Set<ChildProcess>();
let exitHookInstalled = false;

function track(child: ChildProcess): void {
  children.add(child);
  child.once('exit', () => children.delete(child));
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // Only the children this process started, by their own handles.
    process.once('exit', () => {
      for (const c of children) c.kill('SIGKILL');
    });
  }
}

/** Node flags plus tsx for a TypeScript script, so a child runs it directly (one process, no tsx wrapper); a .js script runs as it is. */
function nodeArgs(script: string, args: readonly string[], nodeFlags: readonly string[]): string[] {
  return script.endsWith('.js') ? [...nodeFlags, script, ...args] : [...nodeFlags, '--import', 'tsx', script, ...args];
}

/** A server running in a child process. */
export interface ServerProcess {
  url: string;
  pid: number;
  /** SIGTERM, then SIGKILL after 3 s; resolves when it exited. */
  close(): Promise<void>;
}

/**
 * Starts a server script in a child process and waits for its `listening on http://…` line.
 * @param script a path relative to the repo root, e.g. `packages/server/src/cli.ts`
 */
export function startServerProcess(script: string, args: readonly string[] = [], nodeFlags: readonly string[] = []): Promise<ServerProcess> {
  const child = spawn(process.execPath, nodeArgs(script, args, nodeFlags), {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NODE_ENV: 'production' },
  });
  track(child);
  let output = '';
  return new Promise<ServerProcess>((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`${script} did not start within 30 s:\n${output}`)), 30_000);
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/[^\s]+)/.exec(output);
      if (!match) return;
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.stdout?.resume();
      resolve({ url: match[1] as string, pid: child.pid as number, close: () => stopChild(child) });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('exit', (code, signal) => fail(new Error(`${script} exited early (${code ?? signal}):\n${output}`)));
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 3_000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/**
 * Starts the reference server's CLI as it ships — the `leasehold-server` bin, `packages/server/dist/cli.js
 * --port 0`, built first when it is missing or older than its sources — in a child process. The
 * source run through tsx would carry esbuild's `keepNames` wrappers, which the build has not.
 */
export async function startReferenceServer(extraArgs: readonly string[] = []): Promise<ServerProcess> {
  await buildIfStale({ log: (line: string) => process.stderr.write(`[bench] ${line}\n`) });
  return startServerProcess('packages/server/dist/cli.js', ['--port', '0', ...extraArgs]);
}

/**
 * Runs a script in a child process and answers the JSON object on the last line of its stdout.
 * Its stderr is passed through (progress); a non-zero exit rejects with it.
 */
export function runJsonChild<T>(script: string, args: readonly string[], nodeFlags: readonly string[] = []): Promise<T> {
  const child = spawn(process.execPath, nodeArgs(script, args, nodeFlags), { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  track(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    process.stderr.write(chunk);
  });
  return new Promise<T>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (code !== 0) return reject(new Error(`${script} failed (${code ?? signal}): ${stderr.trim().split('\n').slice(-5).join('\n')}`));
      const last = stdout.trim().split('\n').at(-1) ?? '';
      try {
        resolve(JSON.parse(last) as T);
      } catch {
        reject(new Error(`${script} printed no JSON result: ${last.slice(0, 200)}`));
      }
    });
  });
}

/** A long-lived child that answers each JSON command sent to its stdin with one JSON line on stdout. */
export interface CommandChild<Ready> {
  pid: number;
  /** The JSON line it printed once it was ready. */
  ready: Ready;
  /** Sends one command (one at a time) and resolves with the child's next line, parsed. */
  ask<T>(command: unknown): Promise<T>;
  /** Ends its stdin (it tears down and exits), SIGKILL after 15 s; resolves when it exited. */
  close(): Promise<void>;
}

/**
 * Starts a script that prints one JSON line when it is ready (within 60 s), then answers every
 * JSON line on its stdin with one JSON line, and exits when its stdin ends. Its stderr is passed through.
 */
export function startCommandChild<Ready>(script: string, args: readonly string[], nodeFlags: readonly string[] = []): Promise<CommandChild<Ready>> {
  const child = spawn(process.execPath, nodeArgs(script, args, nodeFlags), { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  track(child);
  const waiting: { resolve(line: string): void; reject(error: Error): void }[] = [];
  let buffered = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    let end: number;
    while ((end = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, end).trim();
      buffered = buffered.slice(end + 1);
      if (line !== '') waiting.shift()?.resolve(line);
    }
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4_000);
    process.stderr.write(chunk);
  });
  let gone: Error | undefined;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.once('exit', (code, signal) => {
    gone = new Error(`${script} exited (${code ?? signal}): ${stderr.trim().split('\n').slice(-5).join('\n')}`);
    for (const w of waiting.splice(0)) w.reject(gone);
  });
  // A write after it died fails with EPIPE: the exit above already tells why.
  child.stdin?.on('error', () => undefined);
  const next = () => new Promise<string>((resolve, reject) => (gone === undefined ? waiting.push({ resolve, reject }) : reject(gone)));
  const parse = <T>(line: string): T => {
    try {
      return JSON.parse(line) as T;
    } catch {
      throw new Error(`${script} printed a line that is not JSON: ${line.slice(0, 200)}`);
    }
  };
  const ready = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${script} was not ready within 60 s: ${stderr.trim().split('\n').slice(-5).join('\n')}`));
    }, 60_000);
    next()
      .then(resolve, reject)
      .finally(() => clearTimeout(timer));
  });
  return ready.then((line) => ({
    pid: child.pid as number,
    ready: parse<Ready>(line),
    async ask<T>(command: unknown) {
      const answer = next();
      child.stdin?.write(`${JSON.stringify(command)}\n`);
      return parse<T>(await answer);
    },
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const kill = setTimeout(() => child.kill('SIGKILL'), 15_000);
      child.stdin?.end();
      await exited;
      clearTimeout(kill);
    },
  }));
}
