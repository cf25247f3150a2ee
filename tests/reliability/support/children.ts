import { fork, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (children run from it so `--import tsx` resolves). */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** A fixture script of this suite, by file name. */
export function fixture(name: string): string {
  return fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));
}

/** Forks a TypeScript fixture with IPC (`node --import tsx`), collecting its stderr. */
export function forkFixture(name: string, args: string[], env: NodeJS.ProcessEnv = {}): { child: ChildProcess; stderr: () => string } {
  let stderr = '';
  const child = fork(fixture(name), args, {
    cwd: REPO_ROOT,
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    if (stderr.length < 20_000) stderr += chunk.toString();
  });
  return { child, stderr: () => stderr };
}

/** Spawns a TypeScript fixture without IPC (`node [extra flags] --import tsx`), stdout and stderr piped. */
export function spawnFixture(name: string, options: { env?: NodeJS.ProcessEnv; nodeFlags?: string[]; args?: string[] } = {}): ChildProcess {
  return spawn(process.execPath, [...(options.nodeFlags ?? []), '--import', 'tsx', fixture(name), ...(options.args ?? [])], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Resolves with the exit code (or signal) once the child has exited. */
export function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

/**
 * Resolves with the exit code (or signal) once the child has exited and its stdio and IPC
 * channel are closed, so every line it wrote and every message it sent has been read ('exit'
 * may come before the last of them: a message sent just before exiting is then still unread).
 */
export function closed(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  const drained = [child.stdout, child.stderr].every((stream) => stream === null || stream.closed) && !child.connected;
  if ((child.exitCode !== null || child.signalCode !== null) && drained) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
}

/** Splits a child's stdout into lines and calls `onLine` for each. */
export function onLines(child: ChildProcess, onLine: (line: string) => void): void {
  let buffer = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    for (let cut = buffer.indexOf('\n'); cut >= 0; cut = buffer.indexOf('\n')) {
      onLine(buffer.slice(0, cut));
      buffer = buffer.slice(cut + 1);
    }
  });
}

/**
 * Bundles a TypeScript fixture (and the workspace sources it imports) into one ESM file in
 * `outDir` with esbuild, so many processes can start it quickly: `node --import tsx` costs a
 * few hundred ms of CPU per process, which sixteen workers on two busy cores turn into seconds.
 */
export async function bundleFixture(name: string, outDir: string): Promise<string> {
  return bundle(fixture(name), join(outDir, name.replace(/\.ts$/, '.bundle.mjs')));
}

/** The client SDK (`packages/client/src`) as one ESM file in `outDir`, for fixtures that load it by path. */
export function bundleClient(outDir: string): Promise<string> {
  return bundle(join(REPO_ROOT, 'packages/client/src/index.ts'), join(outDir, 'leasehold-client.bundle.mjs'));
}

async function bundle(entry: string, outfile: string): Promise<string> {
  const { build } = await import('esbuild');
  await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    logLevel: 'error',
    // CommonJS dependencies (undici) call require() for Node built-ins.
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  });
  return outfile;
}

/** Forks a bundled fixture (see `bundleFixture`) with IPC, collecting its stderr. */
export function forkBundled(path: string, args: string[], env: NodeJS.ProcessEnv = {}): { child: ChildProcess; stderr: () => string } {
  let stderr = '';
  const child = fork(path, args, { cwd: REPO_ROOT, execArgv: [], env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  child.stderr?.on('data', (chunk: Buffer) => {
    if (stderr.length < 20_000) stderr += chunk.toString();
  });
  return { child, stderr: () => stderr };
}

/** Spawns a bundled fixture (see `bundleFixture`) without IPC, stdout and stderr piped. */
export function spawnBundled(path: string, options: { env?: NodeJS.ProcessEnv; args?: string[] } = {}): ChildProcess {
  return spawn(process.execPath, [path, ...(options.args ?? [])], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}
