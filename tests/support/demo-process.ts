/**
 * `pnpm demo` as a plain `node` child, watched line by line: the balancer's URL once its servers
 * listen, its progress (one line a second off a terminal), and its audit once it exits.
 */
import { spawn } from 'node:child_process';
import { ROOT } from './deploy-files.js';
import { killTree } from './process-tree.js';

/** A running demo. */
export interface DemoProcess {
  /** The balancer's URL (`… behind nginx at URL`), once the servers listen. */
  url(): Promise<string>;
  /** Items done so far (tasks + messages + keys) and in all, from the last progress line. */
  progress(): { done: number; total: number };
  /** When its last progress line arrived (epoch ms; 0 before the first): it was still working then. */
  lastProgressAt(): number;
  /** Resolves once `done ≥ count` (throws if the demo exits first or after `timeoutMs`). */
  doneAtLeast(count: number, timeoutMs: number): Promise<void>;
  /** Everything it printed, stdout and stderr. */
  output(): string;
  /** Its exit code, once it exits. */
  readonly exited: Promise<number | null>;
  /** SIGKILLs it with every process it started (servers, nginx, workers). */
  kill(): void;
}

/** Spawns the demo with `args` (from the repository root, as `pnpm demo` runs it). */
export function spawnDemo(args: readonly string[]): DemoProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'demo/src/main.ts', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  let done = 0;
  let total = 0;
  let lastProgressAt = 0;
  let progressLines = 0;
  let exitCode: number | null | undefined;
  const collect = (chunk: Buffer) => {
    text += chunk.toString('utf8');
    // Complete lines only: a chunk can end inside one.
    const lines = [...text.slice(0, text.lastIndexOf('\n') + 1).matchAll(/^progress: (.*)$/gm)];
    const last = lines.at(-1)?.[1];
    if (lines.length > progressLines) {
      progressLines = lines.length;
      lastProgressAt = Date.now();
    }
    if (last !== undefined) {
      const counts = [...last.matchAll(/(\d+)\/(\d+)/g)].map((m) => [Number(m[1]), Number(m[2])] as const);
      done = counts.reduce((sum, [d]) => sum + d, 0);
      total = counts.reduce((sum, [, t]) => sum + t, 0);
    }
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve((exitCode = code))));
  const until = async (what: string, ready: () => boolean, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    while (!ready()) {
      if (exitCode !== undefined) throw new Error(`the demo exited (${exitCode}) before ${what}:\n${text}`);
      if (Date.now() > deadline) throw new Error(`the demo: no ${what} within ${timeoutMs} ms:\n${text}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  return {
    url: async () => {
      await until('balancer URL', () => /behind nginx at (http:\S+)/.test(text), 120_000);
      return /behind nginx at (http:\S+)/.exec(text)![1]!;
    },
    progress: () => ({ done, total }),
    lastProgressAt: () => lastProgressAt,
    doneAtLeast: (count, timeoutMs) => until(`${count} items done`, () => done >= count, timeoutMs),
    output: () => text,
    exited,
    kill: () => {
      if (child.pid !== undefined) killTree([child.pid]);
    },
  };
}
