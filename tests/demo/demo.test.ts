import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/postgres-database.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

describe('pnpm demo', () => {
  it('runs a small fleet to an audit that finds every item done exactly once, and exits 0', async () => {
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', 'demo/src/main.ts', '--workers', '2', '--tasks', '4', '--messages', '6', '--keys', '2', '--no-faults'],
      { cwd: root, timeout: 90_000 },
    );
    expect(stdout).toContain('Reference server (in process) at http://127.0.0.1:');
    expect(stdout).toMatch(/tasks \(lh\.tasks\.work\)\s+4\/4 once, 0 twice, 0 not done/);
    expect(stdout).toMatch(/messages \(consume\)\s+6\/6 once, 0 twice, 0 not done/);
    expect(stdout).toMatch(/keys \(claim\.run\)\s+2\/2 once, 0 twice, 0 not done/);
    expect(stdout).toMatch(/Latency per attempt: p50 [\d.]+ ms, p99 [\d.]+ ms/);
    // The audit explains its two fence counters in the summary itself.
    expect(stdout).toMatch(/stale writes rejected: writes by a worker whose lease had already passed to another/);
    expect(stdout).toMatch(/finished work found on reconcile: a new holder found the effect already recorded/);
    expect(stdout).toContain('OK: nothing was done twice and nothing was lost.');
  }, 120_000);

  it('survives every fault of the timeline (503 burst, 429, a stalled worker, a primary change) with a clean audit', async () => {
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', 'demo/src/main.ts', '--workers', '3', '--tasks', '40', '--messages', '60', '--keys', '6', '--stall-ms', '7000'],
      { cwd: root, timeout: 110_000 },
    );
    for (const fault of ['burst of 503s', '429 with Retry-After', "one worker's event loop stalls for 7 s", 'primary change']) {
      expect(stdout).toContain(`Faults injected: `);
      expect(stdout.split('Faults injected: ')[1]).toContain(fault);
    }
    expect(stdout).toMatch(/tasks \(lh\.tasks\.work\)\s+40\/40 once, 0 twice, 0 not done/);
    expect(stdout).toMatch(/messages \(consume\)\s+60\/60 once, 0 twice, 0 not done/);
    expect(stdout).toMatch(/keys \(claim\.run\)\s+6\/6 once, 0 twice, 0 not done/);
    expect(stdout).toContain('OK: nothing was done twice and nothing was lost.');
  }, 120_000);

  it('runs the fleet on PostgreSQL with --store postgres://… (the audit reads the same store)', async () => {
    const db = await createTestDatabase();
    try {
      const { stdout } = await run(
        process.execPath,
        ['--import', 'tsx', 'demo/src/main.ts', '--store', db.url, '--workers', '2', '--tasks', '4', '--messages', '6', '--keys', '2', '--no-faults'],
        { cwd: root, timeout: 90_000 },
      );
      expect(stdout).toMatch(/Reference server \(in process\) at http:\/\/127\.0\.0\.1:\d+, store postgres/);
      expect(stdout).toMatch(/tasks \(lh\.tasks\.work\)\s+4\/4 once, 0 twice, 0 not done/);
      expect(stdout).toMatch(/messages \(consume\)\s+6\/6 once, 0 twice, 0 not done/);
      expect(stdout).toMatch(/keys \(claim\.run\)\s+2\/2 once, 0 twice, 0 not done/);
      expect(stdout).toContain('OK: nothing was done twice and nothing was lost.');
    } finally {
      await db.drop();
    }
  }, 120_000);

  it('refuses bad sizes with the usage and exit code 2', async () => {
    const failure = await run(process.execPath, ['--import', 'tsx', 'demo/src/main.ts', '--workers', 'zero'], { cwd: root }).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure).toMatchObject({ code: 2 });
    expect((failure as { stderr: string }).stderr).toContain('--workers must be an integer');
  });

  it('answers an unknown flag with the usage and exit code 2, not a stack trace', async () => {
    const failure = await run(process.execPath, ['--import', 'tsx', 'demo/src/main.ts', '--bogus'], { cwd: root }).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure).toMatchObject({ code: 2 });
    const { stderr } = failure as { stderr: string };
    expect(stderr).toMatch(/^pnpm demo: unknown option --bogus\n\nUsage: pnpm demo /);
    expect(stderr).not.toMatch(/ERR_PARSE_ARGS|at parseArgs|node:internal/);
  }, 60_000);
});
