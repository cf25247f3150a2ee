/**
 * 14. What synchronous replication costs: keyed renews and the batch heartbeat on the Patroni
 * pair of deploy/ha (synchronous_mode, reached through its HAProxy as the servers reach it;
 * tests/support/ha-cluster.ts) against one durable PostgreSQL (fsync and synchronous_commit on,
 * no standby) on the same machine, in the same run, rounds interleaved. Both pay a commit's
 * flush; the pair also waits for the standby's, and the HAProxy hop. On one machine the standby
 * is a loopback hop away: between hosts add the round trip to it to every commit.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { SqlStore, createPgDriver } from '../packages/server/src/store/index.js';
import { startHaCluster } from '../tests/support/ha-cluster.js';
import { startPostgresCluster } from '../tests/support/postgres-cluster.js';
import { RUN_ID, SPACE_ID } from './lib/fixtures.js';
import { BENCH_ACCOUNT, BENCH_KEY, BENCH_KEYS, HEARTBEAT_KEY } from './lib/sql-backends.js';
import { seedHeldClaims } from './lib/sql-ceilings.js';
import { acquireHeld, heartbeatCall, renewCall, type HeldToken } from './lib/sql-ops.js';
import { storeCaller, type StoreCaller } from './lib/store-calls.js';
import { median } from './lib/stats.js';
import { pairedRow, type Benchmark } from './lib/types.js';

const SESSION = 'ha-hb';
const WORKERS = 8;

/** One database under test: its store, callers and the claims its loops renew. */
interface Subject {
  store: SqlStore;
  renewer: StoreCaller;
  beater: StoreCaller;
  claims: HeldToken[];
}

async function openSubject(url: string, leases: number): Promise<Subject> {
  const store = await SqlStore.open(createPgDriver({ url }), { keys: BENCH_KEYS, sweepIntervalMs: 0 });
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const direct = { query: async <T>(text: string, params: readonly unknown[] = []) => (await admin.query(text, [...params])).rows as T[] };
  await seedHeldClaims(direct, { accountId: BENCH_ACCOUNT, credentialId: 'cred_bench_heartbeat', spaceId: SPACE_ID, scopeId: RUN_ID, session: SESSION, prefix: 'ha-hb/', count: leases, leaseSeconds: 600 });
  await admin.end();
  await store.maintain(); // ANALYZE after the bulk seed, as the pg-heartbeat bench does
  const renewer = storeCaller(store, BENCH_KEY);
  const claims = await Promise.all(Array.from({ length: WORKERS }, (_, i) => acquireHeld(renewer, `ha-renew/${i}/${randomUUID()}`)));
  return { store, renewer, beater: storeCaller(store, HEARTBEAT_KEY), claims };
}

/** Renews per second: `WORKERS` loops, each renewing its own claim `each` times under a fresh Idempotency-Key. */
async function renewRate(subject: Subject, each: number): Promise<number> {
  const t0 = performance.now();
  await Promise.all(subject.claims.map(async (claim) => {
    for (let i = 0; i < each; i++) await subject.renewer.call(renewCall(claim, true));
  }));
  return (WORKERS * each) / ((performance.now() - t0) / 1000);
}

/** Wall time of one heartbeat renewing every seeded lease. */
async function beatMs(subject: Subject, leases: number): Promise<number> {
  const t0 = performance.now();
  const answer = await subject.beater.call(heartbeatCall(SESSION));
  const ms = performance.now() - t0;
  if (((answer.body as string).match(/"held"/g) ?? []).length !== leases) throw new Error('the heartbeat did not renew every lease');
  return ms;
}

export const haPair: Benchmark = {
  name: 'ha',
  title: '14. Synchronous replication: renews and heartbeats on the Patroni pair (deploy/ha, through HAProxy) vs one durable PostgreSQL',
  async run(ctx) {
    const sizes = ctx.quick ? { leases: 100, each: 5, beats: 1 } : { leases: 2_000, each: 40, beats: 3 };
    ctx.log('ha: starting etcd, two Patroni nodes and HAProxy, and a single PostgreSQL');
    const ha = await startHaCluster();
    const single = await startPostgresCluster({ durable: true });
    const subjects: Subject[] = [];
    try {
      const pair = await openSubject(ha.storeUrl, sizes.leases);
      subjects.push(pair);
      const alone = await openSubject(single.url, sizes.leases);
      subjects.push(alone);
      for (const subject of subjects) {
        await renewRate(subject, 2);
        await beatMs(subject, sizes.leases);
      }
      const rate = { pair: [] as number[], alone: [] as number[] };
      const beat = { pair: [] as number[], alone: [] as number[] };
      for (let r = 0; r < ctx.rounds; r++) {
        ctx.log(`ha: round ${r + 1}/${ctx.rounds}`);
        const order = r % 2 === 0 ? (['pair', 'alone'] as const) : (['alone', 'pair'] as const);
        for (const name of order) {
          const subject = name === 'pair' ? pair : alone;
          rate[name].push(await renewRate(subject, sizes.each));
          const beats: number[] = [];
          for (let b = 0; b < sizes.beats; b++) beats.push(await beatMs(subject, sizes.leases));
          beat[name].push(median(beats));
        }
      }
      const n = sizes.leases.toLocaleString('en-US');
      return {
        rows: [
          pairedRow('ha', `keyed renew, ${WORKERS} concurrent loops: renews/s on the synchronous pair`, 'renews/s', rate.pair, 'one PostgreSQL, no standby', rate.alone),
          pairedRow('ha', `heartbeat of ${n} leases on the synchronous pair: wall per beat`, 'ms', beat.pair, 'one PostgreSQL, no standby', beat.alone),
        ],
        notes: [
          `${ctx.rounds} rounds, order alternating; a round: ${WORKERS} × ${sizes.each} keyed renews, then ${sizes.beats} heartbeats (median); the store called in process (no HTTP), as the other SQL benches do`,
          'pair: Patroni synchronous_mode, synchronous_commit on, both nodes and HAProxy on this machine; single: the same PostgreSQL build, fsync and synchronous_commit on',
        ],
      };
    } finally {
      await Promise.all(subjects.map((s) => s.store.close()));
      single.stop();
      ha.stop();
    }
  },
};
