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
