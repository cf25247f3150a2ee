/**
 * 6. The SQL store, for PostgreSQL (a throwaway cluster this benchmark starts and stops) and for
 * the embedded PGlite: renew, acquire+release, a batch heartbeat of 10,000 leases and
 * send+receive+ack, each as the pipeline will run it (authenticate, rate limit, one
 * `Store.execute` with a fresh Idempotency-Key where the operation takes one), vs the ceiling —
 * the same work sent directly through the same driver (`lib/sql-ceilings.ts`) — and vs the
 * memory store. Then the round trips and statements each operation sends (`lib/sql-counter.ts`).
 */
import { randomUUID } from 'node:crypto';
import { RealClock } from '../packages/server/src/engine/index.js';
import { MemoryStore } from '../packages/server/src/store/index.js';
import { RUN_ID, SPACE_ID } from './lib/fixtures.js';
import { interleaved, opsPerSecond } from './lib/measure.js';
import {
  BENCH_ACCOUNT,
  BENCH_KEY,
  BENCH_KEYS,
  HEARTBEAT_KEY,
  POOL_SIZE,
  pgliteBackend,
  startBenchCluster,
  type SqlBackend,
} from './lib/sql-backends.js';
import { directAcquireRelease, directHeartbeat, directRenew, directRenewKeyed, directSendReceiveAck, seedHeldClaims } from './lib/sql-ceilings.js';
import { sqlCallCounts } from './lib/sql-call-counts.js';
import {
  acquireHeld,
  createSpoolCall,
  heartbeatCall,
  putQueueCall,
  releaseCall,
  renewCall,
  sendReceiveAck,
  type HeldToken,
} from './lib/sql-ops.js';
import { storeCaller } from './lib/store-calls.js';
import { pairedRow, ratioTarget, type BenchContext, type Benchmark, type Row } from './lib/types.js';

const HEARTBEAT_SESSION = 'hb-big';

interface Sizes {
  concurrency: number;
  windowMs: number;
  heartbeatLeases: number;
  rounds: number;
}

function sizesOf(ctx: BenchContext): Sizes {
  return ctx.quick
    ? { concurrency: 4, windowMs: 40, heartbeatLeases: 200, rounds: 1 }
    : { concurrency: 2 * POOL_SIZE, windowMs: 700, heartbeatLeases: 10_000, rounds: ctx.rounds };
}

/** A row comparing `a` (the candidate) with `b`, paired per round. */
const compare = (label: string, unit: string, a: number[], baselineLabel: string, b: number[], target?: number): Row =>
  pairedRow('sql', label, unit, a, baselineLabel, b, target === undefined ? undefined : ratioTarget('>=', target));

async function measureBackend(ctx: BenchContext, backend: SqlBackend, sizes: Sizes): Promise<Row[]> {
  const kind = backend.kind === 'postgres' ? 'PostgreSQL' : 'PGlite';
  const { store } = await backend.openStore();
  const db = backend.direct();
  const memory = new MemoryStore({ clock: new RealClock(), keys: BENCH_KEYS });
  const sql = storeCaller(store, BENCH_KEY);
  const mem = storeCaller(memory, BENCH_KEY);
  const credentialId = 'cred_bench';
  const ids = { accountId: BENCH_ACCOUNT, credentialId, spaceId: SPACE_ID, scopeId: RUN_ID };
  const workers = Array.from({ length: sizes.concurrency }, (_, w) => w);
  const rows: Row[] = [];

  // Renew: each worker renews its own claim (600 s, so it never lapses) as fast as it answers.
  ctx.log(`sql: ${kind} renew`);
  const sqlClaims = await Promise.all(workers.map((w) => acquireHeld(sql, `renew/${w}`)));
  const memClaims = await Promise.all(workers.map((w) => acquireHeld(mem, `renew/${w}`)));
  const directClaims = await Promise.all(workers.map((w) => acquireHeld(sql, `renew-direct/${w}`)));
  const renew = await interleaved(sizes.rounds, {
    keyed: () => opsPerSecond(sizes.concurrency, sizes.windowMs, (w) => sql.call(renewCall(sqlClaims[w] as HeldToken, true))),
    unkeyed: () => opsPerSecond(sizes.concurrency, sizes.windowMs, (w) => sql.call(renewCall(sqlClaims[w] as HeldToken, false))),
    direct: () => opsPerSecond(sizes.concurrency, sizes.windowMs, (w) => directRenew(db, directClaims[w] as HeldToken, BENCH_ACCOUNT, SPACE_ID, 600)),
    directKeyed: () =>
      opsPerSecond(sizes.concurrency, sizes.windowMs, (w) =>
        directRenewKeyed(db, directClaims[w] as HeldToken, BENCH_ACCOUNT, SPACE_ID, 600, backend.kind === 'postgres'),
      ),
    memory: () => opsPerSecond(sizes.concurrency, sizes.windowMs, (w) => mem.call(renewCall(memClaims[w] as HeldToken, true))),
  });
  rows.push(
    compare(`${kind}: renew with Idempotency-Key`, 'ops/s', renew.keyed, 'direct SQL, same record', renew.directKeyed, 0.7),
    compare(`${kind}: renew without a key`, 'ops/s', renew.unkeyed, 'direct SQL', renew.direct, 0.7),
    compare(`${kind}: renew with Idempotency-Key vs direct without a record`, 'ops/s', renew.keyed, 'direct SQL', renew.direct),
    compare(`${kind}: renew with Idempotency-Key vs memory`, 'ops/s', renew.keyed, 'memory store', renew.memory),
  );

  // Acquire + release: each worker takes its own free key and gives it back.
  ctx.log(`sql: ${kind} acquire+release`);
  const pair = async (caller: typeof sql, key: string) => caller.call(releaseCall(await acquireHeld(caller, key, 30)));
  const acquireRelease = await interleaved(sizes.rounds, {
    store: () => opsPerSecond(sizes.concurrency, sizes.windowMs, (w) => pair(sql, `pair/${w}`)),
    direct: () => opsPerSecond(sizes.concurrency, sizes.windowMs, (w) => directAcquireRelease(db, ids, `pair-direct/${w}`, `clm_${randomUUID()}`)),
    memory: () => opsPerSecond(sizes.concurrency, sizes.windowMs, (w) => pair(mem, `pair/${w}`)),
  });
  rows.push(
    compare(`${kind}: acquire+release`, 'pairs/s', acquireRelease.store, 'direct SQL', acquireRelease.direct),
    compare(`${kind}: acquire+release vs memory`, 'pairs/s', acquireRelease.store, 'memory store', acquireRelease.memory),
  );

  // Send + receive + ack on one queue (the direct loop on a queue of its own).
  ctx.log(`sql: ${kind} send+receive+ack`);
  for (const caller of [sql, mem]) {
    await caller.call(createSpoolCall('bench'));
    await caller.call(putQueueCall('bench', 'q'));
  }
  await sql.call(putQueueCall('bench', 'direct'));
  const queueId = (await db.query<{ queue_id: number }>(
    `SELECT queue_id FROM leasehold.queues WHERE account_id = $1 AND spool = 'bench' AND name = 'direct'`,
    [BENCH_ACCOUNT],
  ))[0]?.queue_id as number;
  let n = 0;
  const spool = await interleaved(sizes.rounds, {
    store: () => opsPerSecond(sizes.concurrency, sizes.windowMs, () => sendReceiveAck(sql, 'bench', 'q', n++)),
    direct: () => opsPerSecond(sizes.concurrency, sizes.windowMs, () => directSendReceiveAck(db, { ...ids, queueId, spool: 'bench' }, randomUUID())),
    memory: () => opsPerSecond(sizes.concurrency, sizes.windowMs, () => sendReceiveAck(mem, 'bench', 'q', n++)),
  });
  rows.push(
    compare(`${kind}: send+receive+ack`, 'triples/s', spool.store, 'direct SQL', spool.direct),
    compare(`${kind}: send+receive+ack vs memory`, 'triples/s', spool.store, 'memory store', spool.memory),
  );

  // One heartbeat renewing N leases of one holder session, one heartbeat at a time.
  const leases = sizes.heartbeatLeases;
  ctx.log(`sql: ${kind} heartbeat of ${leases} leases`);
  await seedHeldClaims(db, { ...ids, credentialId: 'cred_bench_heartbeat', session: HEARTBEAT_SESSION, prefix: 'hb/', count: leases, leaseSeconds: 600 });
  await store.maintain(); // what the store's background sweep does within a second of the burst
  const memHb = storeCaller(memory, HEARTBEAT_KEY);
  for (let i = 0; i < leases; i++) await acquireHeld(memHb, `hb/${i}`, 600, HEARTBEAT_SESSION);
  const sqlHb = storeCaller(store, HEARTBEAT_KEY);
  const beat = async (caller: typeof sql) => {
    const answer = await caller.call(heartbeatCall(HEARTBEAT_SESSION));
    if (((answer.body as string).match(/"held"/g) ?? []).length !== leases) throw new Error('the heartbeat did not renew every lease');
  };
  const heartbeat = await interleaved(sizes.rounds, {
    store: () => opsPerSecond(1, sizes.windowMs, () => beat(sqlHb)),
    direct: () =>
      opsPerSecond(1, sizes.windowMs, async () => {
        if ((await directHeartbeat(db, 'cred_bench_heartbeat', HEARTBEAT_SESSION, 600)) !== leases) throw new Error('direct heartbeat');
      }),
    memory: () => opsPerSecond(1, sizes.windowMs, () => beat(memHb)),
  });
  const nLeases = leases.toLocaleString('en-US');
  rows.push(
    compare(`${kind}: heartbeat of ${nLeases} leases`, 'beats/s', heartbeat.store, 'direct SQL', heartbeat.direct, 0.7),
    compare(`${kind}: heartbeat of ${nLeases} leases vs memory`, 'beats/s', heartbeat.store, 'memory store', heartbeat.memory),
  );
  return rows;
}

export const sqlStore: Benchmark = {
  name: 'sql',
  title: '6. SQL store — PostgreSQL (throwaway cluster) and PGlite (in memory) through Store.execute vs the same SQL direct and vs memory',
  async run(ctx) {
    const sizes = sizesOf(ctx);
    const rows: Row[] = [];
    const notes: string[] = [];
    const cluster = await startBenchCluster();
    try {
      const postgres = await cluster.database();
      try {
        rows.push(...(await measureBackend(ctx, postgres, sizes)));
      } finally {
        await postgres.close();
      }
      const pglite = await pgliteBackend();
      try {
        rows.push(...(await measureBackend(ctx, pglite, sizes)));
      } finally {
        await pglite.close();
      }
      const counts = await sqlCallCounts(ctx, cluster, sizes.heartbeatLeases);
      rows.push(...counts.rows);
      notes.push(...counts.notes);
    } finally {
      cluster.stop();
    }
    notes.push(
      `throughput: closed loops, ${sizes.concurrency} calls in flight (heartbeat: 1), ${sizes.windowMs} ms windows, ${sizes.rounds} rounds alternating; pool ${POOL_SIZE} for the store and the direct client; the store's background sweep off`,
      'store path: authenticate + rate limit + Store.execute with a fresh Idempotency-Key (renew also without), the answer encoded inside the unit, as the pipeline will run it',
      'direct SQL: renew and heartbeat send the store\'s own statements (the keyed renew: renew_space_claim with a fresh idempotency record, as the store sends it; the row after it shows what the record costs), acquire+release and send+receive+ack minimal statements of their own (3 each; bench/lib/sql-ceilings.ts); prepared statements with pg; no transaction or authentication; no idempotency record but in the keyed renew',
      'memory: the same calls through MemoryStore (real clock); PGlite is one session in this process, so its calls queue',
    );
    return { rows, notes };
  },
};
