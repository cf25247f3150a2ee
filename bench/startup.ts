/**
 * 9. Start-up: what every test file and every deploy pays before the first request. Each sample
 * is a fresh `node` process (no module cache shared between samples), candidate and baseline
 * interleaved per round:
 *   - `import('@leasehold/msw')` (its built dist) against `import('msw/node')`, timed inside the
 *     child from before the import to after it (node's own boot is not counted on either side);
 *   - the server's cold start, from spawn to the first `/healthz` 200, on memory, an embedded
 *     directory (existing and new) and PostgreSQL (existing database), against a bare `node:http`
 *     server started and polled the same way.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildIfStale } from '../scripts/pack-packages.mjs';
import { startPostgresCluster } from '../tests/support/postgres-cluster.js';
import { REPO_ROOT } from './lib/child.js';
import { interleaved } from './lib/measure.js';
import { pairedRatios, summarize } from './lib/stats.js';
import { finishRow, ratioTarget, type Benchmark, type Row } from './lib/types.js';

const CLI = join(REPO_ROOT, 'packages/server/dist/cli.js');
const MSW_PACKAGE = join(REPO_ROOT, 'packages/msw');

/** Milliseconds a module specifier takes to import in a fresh node process started in `cwd`. */
function importMs(specifier: string, cwd: string): Promise<number> {
  const script = `const t0 = performance.now(); await import(${JSON.stringify(specifier)}); process.stdout.write(String(performance.now() - t0));`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.once('exit', (code) => (code === 0 ? resolve(Number(out)) : reject(new Error(`import ${specifier} failed (${code}): ${err}`))));
  });
}

const BARE_SERVER = `require('node:http').createServer((req, res) => res.end('ok')).listen(0, '127.0.0.1', function () { console.log('listening on http://127.0.0.1:' + this.address().port); });`;

/** Milliseconds from spawning `args` to the first 200 of `<url>/healthz`; the process is then stopped. */
async function coldStartMs(args: readonly string[]): Promise<number> {
  const t0 = performance.now();
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_ENV: 'production' } });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let output = '';
      const timer = setTimeout(() => reject(new Error(`no listening line within 60 s:\n${output}`)), 60_000);
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        const match = /listening on (http:\/\/[^\s,]+)/.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(match[1] as string);
        }
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      child.once('exit', (code) => reject(new Error(`exited early (${code}):\n${output}`)));
    });
    for (let attempt = 0; attempt < 2_000; attempt++) {
      const response = await fetch(`${url}/healthz`).catch(() => undefined);
      await response?.body?.cancel();
      if (response?.status === 200) return performance.now() - t0;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    throw new Error(`${url}/healthz never answered 200`);
  } finally {
    child.kill('SIGKILL');
    await exited;
  }
}

/** One row: candidate vs baseline over `rounds` interleaved rounds. */
async function compare(label: string, baselineLabel: string, rounds: number, candidate: () => Promise<number>, baseline: () => Promise<number>, limit: number | undefined, note?: string): Promise<Row> {
  const samples = await interleaved(rounds, { candidate, baseline });
  return finishRow({
    bench: 'startup',
    label,
    unit: 'ms',
    value: summarize(samples.candidate),
    baseline: { label: baselineLabel, value: summarize(samples.baseline) },
    ratio: summarize(pairedRatios(samples.candidate, samples.baseline)),
    target: limit === undefined ? undefined : ratioTarget('<=', limit),
    note,
  });
}

export const startup: Benchmark = {
  name: 'startup',
  title: '9. Start-up — import and cold start, each sample a fresh node process',
  async run(ctx) {
    await buildIfStale({ log: ctx.log });
    const rounds = ctx.quick ? 1 : Math.max(ctx.rounds, 5);
    const rows: Row[] = [];
    const notes: string[] = [];
    const bare = () => coldStartMs(['-e', BARE_SERVER]);

    rows.push(await compare('import @leasehold/msw (dist)', 'import msw/node', rounds, () => importMs(join(MSW_PACKAGE, 'dist/index.js'), MSW_PACKAGE), () => importMs('msw/node', MSW_PACKAGE), 1.5));
    rows.push(await compare('server cold start to /healthz 200, memory', 'bare node:http', rounds, () => coldStartMs([CLI, '--port', '0', '--log-level', 'silent']), bare, 2));

    const existing = mkdtempSync(join(tmpdir(), 'leasehold-bench-dir-'));
    const fresh: string[] = [];
    try {
      await coldStartMs([CLI, '--port', '0', '--log-level', 'silent', '--store', existing]);
      rows.push(await compare('cold start, embedded directory (existing)', 'bare node:http', rounds, () => coldStartMs([CLI, '--port', '0', '--log-level', 'silent', '--store', existing]), bare, undefined, 'reported, no target: PGlite boots its WebAssembly PostgreSQL'));
      rows.push(
        await compare('cold start, embedded directory (new)', 'bare node:http', ctx.quick ? 1 : 3, () => {
          const dir = join(mkdtempSync(join(tmpdir(), 'leasehold-bench-new-')), 'store');
          fresh.push(dir);
          return coldStartMs([CLI, '--port', '0', '--log-level', 'silent', '--store', dir]);
        }, bare, undefined, 'reported, no target: a new directory runs initdb and every migration first'),
      );
    } finally {
      rmSync(existing, { recursive: true, force: true });
      for (const dir of fresh) rmSync(join(dir, '..'), { recursive: true, force: true });
    }

    const cluster = await startPostgresCluster();
    try {
      const url = cluster.url;
      await coldStartMs([CLI, '--port', '0', '--log-level', 'silent', '--store', url]);
      rows.push(await compare('cold start, PostgreSQL (migrated database)', 'bare node:http', rounds, () => coldStartMs([CLI, '--port', '0', '--log-level', 'silent', '--store', url]), bare, 2));
    } finally {
      cluster.stop();
    }
    notes.push('cold start: spawn → the first /healthz 200, polled every 2 ms; both sides pay node’s own boot (~40 ms here)');
    return { rows, notes };
  },
};
