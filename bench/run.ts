/**
 * `pnpm bench` — runs the benchmarks, prints the table, writes `bench/results/latest.json`.
 *   --only <name>[,<name>]   client, throughput, heartbeat, engine, mocked, sql, sweep, replicas, startup, pg-heartbeat, python, alternatives, scale-out, ha
 *   --quick                  tiny sizes, one round (the smoke test)
 *   --rounds <n>             rounds per comparison (default 5)
 *   --out <file>             where to write the JSON (default bench/results/latest.json)
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { alternatives } from './alternatives.js';
import { clientOverhead } from './client-overhead.js';
import { engineScale } from './engine-scale.js';
import { haPair } from './ha.js';
import { batchHeartbeat } from './heartbeat.js';
import { renderTable } from './lib/table.js';
import type { BenchContext, Benchmark, BenchReport, ResultsFile } from './lib/types.js';
import { mockedSpeed } from './mocked.js';
import { pythonSdk } from './python.js';
import { scaleOut } from './scale-out.js';
import { serverThroughput } from './server-throughput.js';
import { pgHeartbeat } from './sql-heartbeat.js';
import { sqlReplicas } from './sql-replicas.js';
import { sqlStore } from './sql-store.js';
import { sqlSweep } from './sql-sweep.js';
import { startup } from './startup.js';

const BENCHMARKS: readonly Benchmark[] = [clientOverhead, serverThroughput, batchHeartbeat, engineScale, mockedSpeed, sqlStore, sqlSweep, sqlReplicas, startup, pgHeartbeat, pythonSdk, alternatives, scaleOut, haPair];

const here = dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2).filter((a) => a !== '--');

// Memory figures need a full GC: re-run this script under --expose-gc when it is missing.
if (typeof (globalThis as { gc?: unknown }).gc !== 'function') {
  const child = spawnSync(process.execPath, ['--expose-gc', ...process.execArgv, fileURLToPath(import.meta.url), ...argv], { stdio: 'inherit' });
  process.exit(child.status ?? 1);
}

const { values } = parseArgs({
  args: argv,
  options: {
    only: { type: 'string' },
    quick: { type: 'boolean', default: false },
    rounds: { type: 'string', default: '5' },
    out: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
  strict: true,
});

if (values.help) {
  process.stdout.write(`usage: pnpm bench [-- --only ${BENCHMARKS.map((b) => b.name).join('|')}] [--quick] [--rounds n] [--out file]\n`);
  process.exit(0);
}

const wanted = values.only ? values.only.split(',').map((s) => s.trim()) : BENCHMARKS.map((b) => b.name);
const unknown = wanted.filter((n) => !BENCHMARKS.some((b) => b.name === n));
if (unknown.length) {
  process.stderr.write(`unknown benchmark(s): ${unknown.join(', ')}; known: ${BENCHMARKS.map((b) => b.name).join(', ')}\n`);
  process.exit(2);
}
const rounds = Number(values.rounds);
if (!Number.isInteger(rounds) || rounds < 1) {
  process.stderr.write(`--rounds must be a positive integer\n`);
  process.exit(2);
}

const ctx: BenchContext = {
  quick: values.quick,
  rounds: values.quick ? 1 : rounds,
  log: (message) => process.stderr.write(`[bench] ${message}\n`),
};

const startedAt = new Date();
const reports: BenchReport[] = [];
for (const bench of BENCHMARKS.filter((b) => wanted.includes(b.name))) {
  ctx.log(`${bench.name}: start`);
  const t0 = performance.now();
  try {
    const output = await bench.run(ctx);
    reports.push({ name: bench.name, title: bench.title, durationMs: performance.now() - t0, ...output });
  } catch (error) {
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    ctx.log(`${bench.name}: FAILED ${message}`);
    reports.push({ name: bench.name, title: bench.title, durationMs: performance.now() - t0, rows: [], notes: [], error: message.split('\n')[0] ?? message });
  }
}

const results: ResultsFile = {
  startedAt: startedAt.toISOString(),
  finishedAt: new Date().toISOString(),
  node: process.version,
  platform: `${process.platform}-${process.arch}`,
  cpus: cpus().length,
  quick: ctx.quick,
  rounds: ctx.rounds,
  benches: reports,
};
const out = resolve(values.out ?? resolve(here, 'results/latest.json'));
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
process.stdout.write(`${renderTable(reports)}\n\nresults: ${out}\n`);
process.exitCode = reports.some((r) => r.error) ? 1 : 0;
