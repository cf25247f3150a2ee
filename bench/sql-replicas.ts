/**
 * 8. Scaling out on one PostgreSQL: renew and heartbeat throughput with 1, 2 and 3 store
 * instances (stand-ins for server processes: each its own pool and credential cache) on one
 * database, the same offered load split evenly across them, each vs 1 instance in the same run.
 * The instances share this Node process, so what the ratio shows is the database's side of
 * scaling out (more connections, the same rows): the cost of scaling out as a number.
 */
import { RUN_ID, SPACE_ID } from './lib/fixtures.js';
import { interleaved, opsPerSecond } from './lib/measure.js';
import { BENCH_ACCOUNT, BENCH_KEY, HEARTBEAT_KEY, POOL_SIZE, startBenchCluster, type BenchStore } from './lib/sql-backends.js';
import { seedHeldClaims } from './lib/sql-ceilings.js';
import { acquireHeld, heartbeatCall, renewCall, type HeldToken } from './lib/sql-ops.js';
import { storeCaller, type StoreCaller } from './lib/store-calls.js';
import { pairedRatios, summarize } from './lib/stats.js';
import { finishRow, type Benchmark, type Row } from './lib/types.js';

const INSTANCES = [1, 2, 3] as const;

export const sqlReplicas: Benchmark = {
  name: 'replicas',
  title: '8. Scaling out — renew and heartbeat throughput with 1, 2 and 3 store instances (separate pools) on one PostgreSQL',
  async run(ctx) {
    const renewers = ctx.quick ? 6 : 2 * 3 * POOL_SIZE; // divisible by 1, 2 and 3
    const sessions = ctx.quick ? 3 : 6;
    const perSession = ctx.quick ? 50 : 1_000;
    const windowMs = ctx.quick ? 40 : 1_000;
    const rounds = ctx.quick ? 1 : ctx.rounds;
    const cluster = await startBenchCluster();
    try {
      const backend = await cluster.database();
      try {
        const stores: BenchStore[] = [];
        for (const _ of INSTANCES) stores.push(await backend.openStore());
        const renewCallers = stores.map((s) => storeCaller(s.store, BENCH_KEY));
        const beatCallers = stores.map((s) => storeCaller(s.store, HEARTBEAT_KEY));
        ctx.log(`replicas: ${renewers} claims to renew, ${sessions} × ${perSession} leases to heartbeat`);
        const claims = await Promise.all(Array.from({ length: renewers }, (_, w) => acquireHeld(renewCallers[0] as StoreCaller, `replica/${w}`)));
        for (let s = 0; s < sessions; s++) {
          await seedHeldClaims(backend.direct(), {
            accountId: BENCH_ACCOUNT,
            credentialId: 'cred_bench_heartbeat',
            spaceId: SPACE_ID,
            scopeId: RUN_ID,
            session: `replica-${s}`,
            prefix: `replica-${s}/`,
            count: perSession,
            leaseSeconds: 3600,
          });
        }
        await stores[0]?.store.maintain();
        // Worker w talks to instance w mod n: the same load, split evenly.
        const renewWith = (n: number) => () =>
          opsPerSecond(renewers, windowMs, (w) => (renewCallers[w % n] as StoreCaller).call(renewCall(claims[w] as HeldToken, true)));
        const beatWith = (n: number) => async () =>
          perSession *
          (await opsPerSecond(sessions, windowMs, (w) => (beatCallers[w % n] as StoreCaller).call(heartbeatCall(`replica-${w}`, 3600))));
        const renew = await interleaved(rounds, Object.fromEntries(INSTANCES.map((n) => [String(n), renewWith(n)])));
        const beat = await interleaved(rounds, Object.fromEntries(INSTANCES.map((n) => [String(n), beatWith(n)])));
        const rows: Row[] = [];
        for (const [what, unit, figures] of [
          ['renew (Idempotency-Key)', 'ops/s', renew],
          [`heartbeat (${sessions} sessions × ${perSession.toLocaleString('en-US')} leases)`, 'leases/s', beat],
        ] as const) {
          const one = figures['1'] as number[];
          rows.push(finishRow({ bench: 'replicas', label: `${what}, 1 instance`, unit, value: summarize(one) }));
          for (const n of INSTANCES.slice(1)) {
            const many = figures[String(n)] as number[];
            rows.push(
              finishRow({
                bench: 'replicas',
                label: `${what}, ${n} instances`,
                unit,
                value: summarize(many),
                baseline: { label: '1 instance', value: summarize(one) },
                ratio: summarize(pairedRatios(many, one)),
              }),
            );
          }
        }
        return {
          rows,
          notes: [
            `offered load: ${renewers} renewers in flight (each its own claim, a fresh Idempotency-Key per call) or ${sessions} heartbeating sessions (one heartbeat in flight each), split evenly over the instances; pool ${POOL_SIZE} per instance; ${windowMs} ms windows, ${rounds} rounds alternating`,
            'statements per operation are those of the single-instance rows of benchmark 6 (the instances share nothing but the database)',
          ],
        };
      } finally {
        await backend.close();
      }
    } finally {
      cluster.stop();
    }
  },
};
