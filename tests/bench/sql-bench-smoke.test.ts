import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { ResultsFile, Row } from '../../bench/lib/types.js';

// Runs the SQL store benchmarks, the start-up one and the alternatives (pg-boss, a lease row) once with
// tiny sizes (`pnpm bench -- --only sql,sweep,replicas,startup,alternatives --quick`: a throwaway cluster
// they start and stop, and PGlite) so they cannot rot. It checks rows and numeric figures and the
// counts that are properties, not speeds: a renew is one round trip, a cached authentication none,
// a heartbeat's statements do not grow with its leases.

const root = fileURLToPath(new URL('../../', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'leasehold-sql-bench-smoke-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function runQuick(out: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const args = ['--expose-gc', '--import', 'tsx', 'bench/run.ts', '--quick', '--only', 'sql,sweep,replicas,startup,alternatives', '--out', out];
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

const finite = (n: number | undefined) => typeof n === 'number' && Number.isFinite(n);

describe('SQL bench smoke (--quick)', () => {
  it('runs the SQL benchmarks once; each produces its rows, and the round-trip counts hold', async () => {
    const out = join(scratch, 'quick.json');
    const { code, output } = await runQuick(out);
    expect(code, output).toBe(0);
    const results = JSON.parse(readFileSync(out, 'utf8')) as ResultsFile;
    const byName = new Map(results.benches.map((b) => [b.name, b]));
    expect([...byName.keys()]).toEqual(['sql', 'sweep', 'replicas', 'startup', 'alternatives']);
    const minimumRows: Record<string, number> = { sql: 30, sweep: 8, replicas: 6, startup: 5, alternatives: 6 };
    for (const [name, bench] of byName) {
      expect(bench.error, `${name}: ${bench.error}`).toBeUndefined();
      expect(bench.rows.length, name).toBeGreaterThanOrEqual(minimumRows[name] ?? 1);
      for (const row of bench.rows as Row[]) {
        expect(finite(row.value.median), `${name}/${row.label}`).toBe(true);
        if (row.ratio) expect(finite(row.ratio.median), `${name}/${row.label} ratio`).toBe(true);
      }
    }
    const sql = (byName.get('sql')?.rows ?? []) as Row[];
    const figure = (label: string) => sql.find((r) => r.label === label)?.value.median;
    expect(figure('round trips: renew (Idempotency-Key)')).toBe(1);
    expect(figure('round trips: renew (no key)')).toBe(1);
    expect(figure('round trips: authenticate, again')).toBe(0);
    const growth = sql.find((r) => r.label.startsWith('statements: heartbeat of'));
    expect(growth?.ratio?.median).toBe(1);
    expect(output).not.toContain('differs');
  }, 240_000);
});
