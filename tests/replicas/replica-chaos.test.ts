/**
 * The replica chaos test (issue 17's proof): three CLI server processes on one throwaway
 * PostgreSQL database behind real nginx (deploy/nginx/leasehold.conf; each server started as
 * deploy/systemd starts it), a contended fleet through the client — claims with fenced writes,
 * tasks via `tasks.work`, a queue drained by consumers — while a random server is SIGKILLed or
 * SIGTERMed every 1.5 s and restarted. The demo's audit then must find: every item done exactly
 * once, none lost, no stale write accepted (mutual exclusion), fences strictly increasing, and
 * no call failed after its retries (no 5xx reached a worker). Loopback only, bounded (~30 s).
 */
import { execFile } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/postgres-database.js';
import { ROOT } from '../support/deploy-files.js';

const run = promisify(execFile);
let url: string;
let drop: () => Promise<void>;

/** Pids of the processes still running with `LEASEHOLD_STORE=<store>` in their environment (Linux /proc). */
function serversOn(store: string): number[] {
  const wanted = `LEASEHOLD_STORE=${store}`;
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(wanted);
      } catch {
        return false; // exited meanwhile, or not ours to read
      }
    })
    .map(Number);
}

beforeAll(async () => {
  ({ url, drop } = await createTestDatabase());
});
afterAll(async () => {
  await drop?.();
});

describe('three server processes on one PostgreSQL behind nginx, killed and restarted', () => {
  it('keeps every promise: exactly once, nothing lost, fences strictly increasing, no failed call', async () => {
    const started = Date.now();
    const { stdout } = await run(
      process.execPath,
      [
        '--import', 'tsx', 'demo/src/main.ts',
        '--store', url, '--replicas', '3', '--kill-every', '1000ms',
        '--workers', '3', '--tasks', '36', '--messages', '60', '--keys', '8',
        '--no-faults', '--timeout', '40',
      ],
      { cwd: ROOT, timeout: 75_000, maxBuffer: 16 * 1024 * 1024 },
    ).catch((error: { stdout?: string; stderr?: string; message: string }) => {
      throw new Error(`the demo failed: ${error.message}\n${error.stdout ?? ''}\n${error.stderr ?? ''}`);
    });
    const audit = stdout.slice(stdout.indexOf('Leasehold demo —'));
    expect(stdout, audit).toContain('3 server processes (ports');
    expect(audit).toMatch(/tasks \(lh\.tasks\.work\)\s+36\/36 once, 0 twice, 0 not done/);
    expect(audit).toMatch(/messages \(consume\)\s+60\/60 once, 0 twice, 0 not done/);
    expect(audit).toMatch(/keys \(claim\.run\)\s+8\/8 once, 0 twice, 0 not done/);
    expect(audit).toContain('fences strictly increasing: yes');
    expect(audit).toContain('Unexpected errors: none');
    const chaos = /Process chaos: 3 server processes; (\d+) SIGKILLed, (\d+) SIGTERMed, (\d+) restarted/.exec(audit);
    expect(chaos, audit).not.toBeNull();
    const [kills, terms, restarts] = (chaos as RegExpExecArray).slice(1).map(Number) as [number, number, number];
    expect(kills + terms, audit).toBeGreaterThanOrEqual(3);
    // Every killed process came back, but the last one(s) may still be starting when the fleet finishes.
    expect(restarts).toBeGreaterThanOrEqual(Math.max(1, kills + terms - 2));
    expect(audit).toContain('OK: nothing was done twice and nothing was lost.');
    // The demo has exited: none of its servers outlives it, not even one restarting when it stopped.
    expect(serversOn(url), 'server processes left running after the demo exited').toEqual([]);
    console.log(`replica chaos: ${kills} SIGKILL, ${terms} SIGTERM, ${restarts} restarts in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }, 90_000);
});
