/**
 * 7. SQL expiry cost: a background sweep pass and a manual clock tick (`advanceClock(1)`: the
 * clock row, a sweep to completion, the clock read back) with nothing due, at 1,000, 10,000 and
 * 100,000 held space claims — on PostgreSQL (one database per size in a throwaway cluster) and
 * PGlite (one in-memory database per size). "Flat": the 100,000 figure ≤ 1.5× the 1,000 one.
 */
import { RUN_ID, SPACE_ID } from './lib/fixtures.js';
import { interleaved } from './lib/measure.js';
import { BENCH_ACCOUNT, pgliteBackend, startBenchCluster, type BenchStore, type SqlBackend } from './lib/sql-backends.js';
import { seedHeldClaims } from './lib/sql-ceilings.js';
import { pairedRatios, summarize } from './lib/stats.js';
import { finishRow, ratioTarget, type BenchContext, type Benchmark, type Row } from './lib/types.js';

interface Sized {
  held: number;
  backend: SqlBackend;
  bench: BenchStore;
}

/** Mean µs of `fn` over `reps` sequential calls. */
async function meanMicros(reps: number, fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < reps; i++) await fn();
  return ((performance.now() - t0) * 1000) / reps;
}

async function open(backend: SqlBackend, held: number): Promise<Sized> {
  const bench = await backend.openStore({ clock: 'manual' });
  const db = backend.direct();
  await seedHeldClaims(db, {
    accountId: BENCH_ACCOUNT,
    credentialId: 'cred_bench',
    spaceId: SPACE_ID,
    scopeId: RUN_ID,
    session: 'sweep',
    prefix: 'sweep/',
    count: held,
    leaseSeconds: 3600,
  });
  await bench.store.maintain();
  await bench.store.sweepAll();
  return { held, backend, bench };
}

async function measureKind(ctx: BenchContext, kind: 'postgres' | 'pglite', make: () => Promise<SqlBackend>, sizes: number[]): Promise<Row[]> {
  const label = kind === 'postgres' ? 'PostgreSQL' : 'PGlite';
  const reps = ctx.quick ? 5 : 40;
  const rounds = ctx.quick ? 1 : ctx.rounds;
  const stores: Sized[] = [];
  try {
    for (const held of sizes) {
      ctx.log(`sweep: ${label}, ${held.toLocaleString('en-US')} held`);
      stores.push(await open(await make(), held));
    }
    for (const s of stores) await meanMicros(reps, () => s.bench.store.sweep()); // warm-up
    const pass = await interleaved(rounds, Object.fromEntries(stores.map((s) => [String(s.held), () => meanMicros(reps, () => s.bench.store.sweep())])));
    const tick = await interleaved(
      rounds,
      Object.fromEntries(stores.map((s) => [String(s.held), () => meanMicros(reps, () => Promise.resolve(s.bench.store.controls.advanceClock(1)))])),
    );
    const [small, ...larger] = stores as [Sized, ...Sized[]];
    const rows: Row[] = [];
    for (const [what, figures] of [
      ['sweep pass', pass],
      ['clock tick', tick],
    ] as const) {
      for (const big of larger) {
        const a = figures[String(big.held)] as number[];
        const b = figures[String(small.held)] as number[];
        rows.push(
          finishRow({
            bench: 'sweep',
            label: `${label}: ${what}, nothing due, ${big.held.toLocaleString('en-US')} held`,
            unit: 'µs',
            value: summarize(a),
            baseline: { label: `${small.held.toLocaleString('en-US')} held`, value: summarize(b) },
            ratio: summarize(pairedRatios(a, b)),
            target: big === larger[larger.length - 1] ? ratioTarget('<=', 1.5) : undefined,
          }),
        );
      }
    }
    return rows;
  } finally {
    for (const s of stores) await s.backend.close();
  }
}

export const sqlSweep: Benchmark = {
  name: 'sweep',
  title: '7. SQL expiry — a sweep pass and a manual clock tick with nothing due, by claims held (flat: ≤ 1.5×)',
  async run(ctx) {
    const sizes = ctx.quick ? [100, 300, 1_000] : [1_000, 10_000, 100_000];
    const cluster = await startBenchCluster();
    const rows: Row[] = [];
    try {
      rows.push(...(await measureKind(ctx, 'postgres', () => cluster.database(), sizes)));
    } finally {
      cluster.stop();
    }
    rows.push(...(await measureKind(ctx, 'pglite', pgliteBackend, sizes)));
    return {
      rows,
      notes: [
        `held: space claims of 3,600 s seeded in bulk into a fresh database per size (then the store's own statistics maintenance and a full sweep); ${ctx.quick ? 5 : 40} sequential calls per figure, mean µs; ${ctx.quick ? 1 : ctx.rounds} rounds alternating the sizes`,
        'sweep pass: store.sweep() (BEGIN, the clock, six bounded index probes, COMMIT); clock tick: controls.advanceClock(1) on a manual clock (the clock row, sweep to completion, the clock read back)',
      ],
    };
  },
};
