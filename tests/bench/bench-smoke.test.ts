import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { ResultsFile, Row } from '../../bench/lib/types.js';

// Runs `pnpm bench -- --quick` (every benchmark once, tiny sizes) so the benchmarks cannot rot:
// the HTTP, engine and Python SDK ones here, the SQL store ones in sql-bench-smoke.test.ts (in parallel).
// It checks that each one produced its rows with numeric figures, never the performance targets.

const root = fileURLToPath(new URL('../../', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'leasehold-bench-smoke-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function runQuick(out: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const only = ['client', 'throughput', 'heartbeat', 'engine', 'mocked', 'python'].join(',');
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', 'bench/run.ts', '--quick', '--only', only, '--out', out], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

const finite = (n: number | undefined) => typeof n === 'number' && Number.isFinite(n);

function expectNumeric(row: Row): void {
  expect(finite(row.value.median), `${row.bench}/${row.label} figure`).toBe(true);
  if (row.baseline) expect(finite(row.baseline.value.median), `${row.bench}/${row.label} baseline`).toBe(true);
  if (row.ratio) expect(finite(row.ratio.median), `${row.bench}/${row.label} ratio`).toBe(true);
  if (row.target) expect(typeof row.pass, `${row.bench}/${row.label} pass`).toBe('boolean');
}

describe('bench smoke (--quick)', () => {
  it('runs every benchmark once and each produces its rows with numeric figures', async () => {
    const out = join(scratch, 'quick.json');
    const { code, output } = await runQuick(out);
    expect(code, output).toBe(0);
    const results = JSON.parse(readFileSync(out, 'utf8')) as ResultsFile;
    expect(results.quick).toBe(true);
    const byName = new Map(results.benches.map((b) => [b.name, b]));
    expect([...byName.keys()]).toEqual(['client', 'throughput', 'heartbeat', 'engine', 'mocked', 'python']);
    const minimumRows: Record<string, number> = { client: 4, throughput: 3, heartbeat: 9, engine: 4, mocked: 2, python: 3 };
    for (const [name, bench] of byName) {
      expect(bench.error, `${name}: ${bench.error}`).toBeUndefined();
      expect(bench.rows.length, name).toBeGreaterThanOrEqual(minimumRows[name] ?? 1);
      for (const row of bench.rows) expectNumeric(row);
    }
    // The batch heartbeat's defining property holds even at tiny sizes: one request per cadence.
    const perCadence = byName.get('heartbeat')?.rows.filter((r) => r.label.endsWith('requests per cadence')) ?? [];
    expect(perCadence.length).toBeGreaterThan(0);
    for (const row of perCadence) expect(row.value.median, row.label).toBe(1);
    // So does the Python SDK's (its scheduler, counted on the client's httpx request hook).
    const pythonCadence = byName.get('python')?.rows.find((r) => r.label.startsWith('heartbeat requests per cadence'));
    expect(pythonCadence?.value.median, 'python heartbeat requests per cadence').toBe(1);
    expect(output).toContain('targets met:');
  }, 90_000);
});
