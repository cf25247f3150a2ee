/**
 * `pnpm demo --python N`: Python workers (demo/src/python_worker.py, the SDK of packages/python)
 * join the TypeScript ones on one space, one task list and one queue, and the exactly-once audit
 * covers the work of both. On the postgres project the mixed fleet runs on a fresh database
 * (`--store postgres://…`); the rest does not depend on the store and runs with memory only.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { cliStoreArgs, TEST_STORE } from '../support/test-store.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

/** The committed counts of one line `committed by the … workers: 3 tasks, 5 messages, 1 keys`. */
function committed(stdout: string, runtime: 'TypeScript' | 'Python'): number[] {
  const match = new RegExp(`committed by the ${runtime} workers: (\\d+) tasks, (\\d+) messages, (\\d+) keys`).exec(stdout);
  expect(match, stdout).not.toBeNull();
  return match!.slice(1).map(Number);
}

describe('pnpm demo --python N', () => {
  it(`runs TypeScript and Python workers on the same work to an audit that finds every item done exactly once (${TEST_STORE} store)`, async () => {
    const store = await cliStoreArgs();
    let stdout: string;
    try {
      ({ stdout } = await run(
        process.execPath,
        ['--import', 'tsx', 'demo/src/main.ts', ...store.args, '--workers', '1', '--python', '2', '--tasks', '4', '--messages', '8', '--keys', '3', '--no-faults'],
        { cwd: root, timeout: 110_000 },
      ));
    } finally {
      await store.dispose();
    }
    expect(stdout).toContain('Leasehold demo — 1 TypeScript + 2 Python workers');
    expect(stdout).toMatch(/tasks \(lh\.tasks\.work\)\s+4\/4 once, 0 twice, 0 not done/);
    expect(stdout).toMatch(/messages \(consume\)\s+8\/8 once, 0 twice, 0 not done/);
    expect(stdout).toMatch(/keys \(claim\.run\)\s+3\/3 once, 0 twice, 0 not done/);
    const typescript = committed(stdout, 'TypeScript');
    const python = committed(stdout, 'Python');
    // Every item was committed once, by one runtime or the other; the Python workers took part.
    expect(typescript.map((n, i) => n + python[i]!)).toEqual([4, 8, 3]);
    expect(python.reduce((a, b) => a + b)).toBeGreaterThan(0);
    expect(stdout).not.toContain('Workers that exited without a report');
    expect(stdout).toContain('Unexpected errors: none');
    expect(stdout).toContain('OK: nothing was done twice and nothing was lost.');
  }, 120_000);

  if (TEST_STORE === 'memory') it('runs a fleet of Python workers only (--workers 0) through the faults of the timeline with a clean audit', async () => {
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', 'demo/src/main.ts', '--workers', '0', '--python', '2', '--tasks', '10', '--messages', '16', '--keys', '3', '--stall-ms', '7000'],
      { cwd: root, timeout: 110_000 },
    );
    expect(stdout.split('Faults injected: ')[1]).toContain("one worker's event loop stalls for 7 s");
    expect(committed(stdout, 'Python')).toEqual([10, 16, 3]);
    expect(stdout).toContain('OK: nothing was done twice and nothing was lost.');
  }, 120_000);

  if (TEST_STORE === 'memory') it('refuses --workers 0 without Python workers', async () => {
    const failure = await run(process.execPath, ['--import', 'tsx', 'demo/src/main.ts', '--workers', '0'], { cwd: root }).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure).toMatchObject({ code: 2 });
    expect((failure as { stderr: string }).stderr).toContain('--workers must be an integer ≥ 1');
  }, 60_000);
});
