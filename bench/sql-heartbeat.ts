/**
 * 9. The heartbeat of 10,000 leases on PostgreSQL against what a user of PostgreSQL would
 * otherwise write: one `UPDATE leases SET expires_at = … WHERE id = ANY($1) AND … RETURNING id,
 * expires_at` on an equivalent lease table of their own (the same 10,000 leases: id, key, holder
 * session, token digest, fence, expiry; primary key and a unique key, default fillfactor), sent
 * through the same driver, prepared, in the same run, rounds interleaved. Also the same statement
 * on that table with fillfactor 50 (the user who tuned it). Per beat: wall time, WAL bytes per
 * lease, and the HOT share of the lease table's updates; the statements a beat sends; and the
 * HOT share and WAL at the SDK's cadence (ttl 30 s, a beat every 10 s, the sweep running), where
 * the sweep's moves of `due_at` count as lease writes too (docs/storage.md, "Speed: the heartbeat").
 */
import pg from 'pg';
import { SqlStore, createPgDriver } from '../packages/server/src/store/index.js';
import { RUN_ID, SPACE_ID } from './lib/fixtures.js';
import { hotShare, settledUpdates, walOf } from './lib/pg-writes.js';
import { BENCH_ACCOUNT, BENCH_KEYS, HEARTBEAT_KEY, startBenchCluster, type DirectSql } from './lib/sql-backends.js';
import { seedHeldClaims } from './lib/sql-ceilings.js';
import { QueryCounter } from './lib/sql-counter.js';
import { heartbeatCall } from './lib/sql-ops.js';
import { storeCaller } from './lib/store-calls.js';
import { median, single } from './lib/stats.js';
import { finishRow, pairedRow, ratioTarget, type BenchContext, type Benchmark, type Row } from './lib/types.js';

const SESSION = 'hb';
const CREDENTIAL = 'cred_bench_heartbeat';
const LEASES = 'leasehold.leases';

/** The lease table a user would write for themselves, and the same with room for HOT updates. */
const HAND_WRITTEN_TABLES = { plain: 'public.plain_leases', tuned: 'public.tuned_leases' } as const;

function createHandWritten(table: string, fillfactor?: number): string {
  return `CREATE TABLE ${table} (
    id text PRIMARY KEY, key text NOT NULL UNIQUE, holder_session text NOT NULL, token_hash bytea NOT NULL,
    fence bigint NOT NULL, expires_at bigint NOT NULL)${fillfactor === undefined ? '' : ` WITH (fillfactor = ${fillfactor})`};
  INSERT INTO ${table} SELECT claim_id, key, holder_session, token_hash, fence, expires_at FROM leasehold.leases WHERE credential_id = '${CREDENTIAL}';
  ANALYZE ${table}`;
}

/** The hand-written renew: extend the named leases of the session that have not expired. */
const handWrittenUpdate = (table: string) =>
  `UPDATE ${table} SET expires_at = $2::bigint + $3::bigint * 1000
    WHERE id = ANY($1) AND holder_session = $4 AND expires_at > $2 RETURNING id, expires_at`;

/** The admin connection as the seed's client. */
function directOf(admin: pg.Client): DirectSql {
  return { query: async <T>(text: string, params: readonly unknown[] = []) => (await admin.query(text, [...params])).rows as T[] };
}

interface Sizes {
  leases: number;
  rounds: number;
  beatsPerRound: number;
  cadences: number;
}

function sizesOf(ctx: BenchContext): Sizes {
  return ctx.quick ? { leases: 200, rounds: 1, beatsPerRound: 2, cadences: 4 } : { leases: 10_000, rounds: ctx.rounds, beatsPerRound: 5, cadences: 9 };
}

type Candidate = 'store' | 'plain' | 'tuned';
interface Sample {
  ms: number[];
  walPerLease: number[];
}

/** Time, WAL and HOT share of the store's heartbeat and the hand-written UPDATEs, interleaved. */
async function compareBeats(ctx: BenchContext, url: string, sizes: Sizes): Promise<{ rows: Row[]; notes: string[] }> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const counter = new QueryCounter();
  let store = await SqlStore.open(createPgDriver({ url, onQuery: counter.onQuery }), { keys: BENCH_KEYS, sweepIntervalMs: 0 });
  const ids = { accountId: BENCH_ACCOUNT, credentialId: CREDENTIAL, spaceId: SPACE_ID, scopeId: RUN_ID };
  await seedHeldClaims(directOf(admin), { ...ids, session: SESSION, prefix: 'hb/', count: sizes.leases, leaseSeconds: 600 });
  await store.maintain();
  await admin.query(createHandWritten(HAND_WRITTEN_TABLES.plain));
  await admin.query(createHandWritten(HAND_WRITTEN_TABLES.tuned, 50));
  const leaseIds = (await admin.query<{ ids: string[] }>(`SELECT array_agg(id ORDER BY id) AS ids FROM ${HAND_WRITTEN_TABLES.plain}`)).rows[0]?.ids ?? [];
  let direct = new pg.Pool({ connectionString: url, max: 1, options: '-c jit=off' });

  const beat = {
    store: async () => {
      const answer = await storeCaller(store, HEARTBEAT_KEY).call(heartbeatCall(SESSION));
      if (((answer.body as string).match(/"held"/g) ?? []).length !== sizes.leases) throw new Error('the heartbeat did not renew every lease');
    },
    handWritten: (table: string) => async () => {
      const result = await direct.query({ name: `hand_${table}`, text: handWrittenUpdate(table), values: [leaseIds, Date.now(), 600, SESSION] });
      if (result.rowCount !== sizes.leases) throw new Error(`the hand-written UPDATE renewed ${result.rowCount}`);
    },
  };
  const run: Record<Candidate, () => Promise<void>> = {
    store: beat.store,
    plain: beat.handWritten(HAND_WRITTEN_TABLES.plain),
    tuned: beat.handWritten(HAND_WRITTEN_TABLES.tuned),
  };
  ctx.log(`pg-heartbeat: warm-up (${sizes.leases} leases)`);
  for (let i = 0; i < 3; i++) for (const fn of Object.values(run)) await fn();
  const counted = await counter.measure(beat.store);

  // HOT counts are reported by a connection when it closes: count over fresh pools, closed after.
  await store.close();
  await direct.end();
  const before = await settledUpdates(admin, [LEASES, ...Object.values(HAND_WRITTEN_TABLES)]);
  store = await SqlStore.open(createPgDriver({ url }), { keys: BENCH_KEYS, sweepIntervalMs: 0 });
  direct = new pg.Pool({ connectionString: url, max: 1, options: '-c jit=off' });
  const names = Object.keys(run) as Candidate[];
  const samples = Object.fromEntries(names.map((n) => [n, { ms: [], walPerLease: [] }])) as unknown as Record<Candidate, Sample>;
  for (let r = 0; r < sizes.rounds; r++) {
    ctx.log(`pg-heartbeat: round ${r + 1}/${sizes.rounds}`);
    for (let k = 0; k < names.length; k++) {
      const name = names[(k + r) % names.length] as Candidate;
      const ms: number[] = [];
      const wal: number[] = [];
      for (let b = 0; b < sizes.beatsPerRound; b++) {
        const t0 = performance.now();
        wal.push(await walOf(admin, run[name]));
        ms.push(performance.now() - t0);
      }
      samples[name].ms.push(median(ms));
      samples[name].walPerLease.push(median(wal) / sizes.leases);
    }
  }
  await store.close();
  await direct.end();
  const after = await settledUpdates(admin, [LEASES, ...Object.values(HAND_WRITTEN_TABLES)]);
  await admin.end();

  const hot = {
    store: hotShare(before.get(LEASES), after.get(LEASES)),
    plain: hotShare(before.get(HAND_WRITTEN_TABLES.plain), after.get(HAND_WRITTEN_TABLES.plain)),
    tuned: hotShare(before.get(HAND_WRITTEN_TABLES.tuned), after.get(HAND_WRITTEN_TABLES.tuned)),
  };
  const n = sizes.leases.toLocaleString('en-US');
  const row = (label: string, unit: string, a: number[], baselineLabel: string, b: number[], target?: number): Row =>
    pairedRow('pg-heartbeat', label, unit, a, baselineLabel, b, target === undefined ? undefined : ratioTarget('<=', target));
  const rows: Row[] = [
    row(`heartbeat of ${n} leases: wall per beat`, 'ms', samples.store.ms, 'hand-written UPDATE … = ANY($1)', samples.plain.ms, 1.0),
    row(`heartbeat of ${n} leases: WAL per lease`, 'B', samples.store.walPerLease, 'hand-written UPDATE', samples.plain.walPerLease),
    row(`heartbeat of ${n} leases vs the UPDATE on a fillfactor-50 table`, 'ms', samples.store.ms, 'hand-written, fillfactor 50', samples.tuned.ms),
    row(`hand-written UPDATE, fillfactor 50: WAL per lease`, 'B', samples.tuned.walPerLease, 'hand-written UPDATE', samples.plain.walPerLease),
    finishRow({ bench: 'pg-heartbeat', label: 'heartbeat: HOT share of the lease updates', unit: '%', value: single(hot.store), baseline: { label: 'hand-written UPDATE', value: single(hot.plain) } }),
    finishRow({ bench: 'pg-heartbeat', label: 'hand-written UPDATE, fillfactor 50: HOT share', unit: '%', value: single(hot.tuned) }),
    finishRow({ bench: 'pg-heartbeat', label: `heartbeat of ${n} leases: statements (round trips)`, unit: 'statements', value: single(counted.statements), note: `${counted.roundTrips} round trips: ${counted.shapes.join(' · ')}` }),
  ];
  const notes = [
    `${sizes.rounds} rounds × ${sizes.beatsPerRound} beats per candidate, order rotating every round; a round's figure is the median of its beats; 3 warm-up beats each first`,
    'store: authenticate + Store.execute with a fresh Idempotency-Key (as the SDK sends it), the answer encoded and its record stored; hand-written: one prepared UPDATE through pg on a pool of 1, jit=off as the store runs, no transaction, no record',
    `WAL: pg_current_wal_insert_lsn() around each beat; HOT share: pg_stat_user_tables over the measured beats (counted from pools closed before reading)`,
  ];
  return { rows, notes };
}

/** The HOT share and WAL per renewal at the SDK's cadence, the sweep moving `due_at` on as it runs. */
async function atCadence(ctx: BenchContext, url: string, sizes: Sizes): Promise<Row[]> {
  ctx.log(`pg-heartbeat: ${sizes.cadences} cadences of ${sizes.leases} leases on a manual clock`);
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  let store = await SqlStore.open(createPgDriver({ url }), { clock: 'manual', keys: BENCH_KEYS, sweepIntervalMs: 0 });
  const ids = { accountId: BENCH_ACCOUNT, credentialId: CREDENTIAL, spaceId: SPACE_ID, scopeId: RUN_ID };
  await seedHeldClaims(directOf(admin), { ...ids, session: SESSION, prefix: 'cadence/', count: sizes.leases, leaseSeconds: 30 });
  await store.maintain();
  await store.close();
  const before = await settledUpdates(admin, [LEASES]);
  store = await SqlStore.open(createPgDriver({ url }), { clock: 'manual', keys: BENCH_KEYS, sweepIntervalMs: 0 });
  const caller = storeCaller(store, HEARTBEAT_KEY);
  const wal = await walOf(admin, async () => {
    for (let i = 0; i < sizes.cadences; i++) {
      await store.controls.advanceClock(10_000); // sweeps to completion, as the background sweep would have
      await caller.call(heartbeatCall(SESSION, 30));
    }
  });
  await store.close();
  const after = await settledUpdates(admin, [LEASES]);
  await admin.end();
  const renewals = sizes.cadences * sizes.leases;
  const writes = ((after.get(LEASES)?.updates ?? 0) - (before.get(LEASES)?.updates ?? 0)) / renewals;
  return [
    finishRow({
      bench: 'pg-heartbeat',
      label: 'at the SDK cadence (ttl 30 s, a beat every 10 s, sweep on): HOT share of lease writes',
      unit: '%',
      value: single(hotShare(before.get(LEASES), after.get(LEASES))),
      note: `${writes.toFixed(2)} lease-row writes per renewal (the sweep's due_at moves included)`,
    }),
    finishRow({ bench: 'pg-heartbeat', label: 'at the SDK cadence: WAL per renewal, sweep included', unit: 'B', value: single(wal / renewals) }),
  ];
}

export const pgHeartbeat: Benchmark = {
  name: 'pg-heartbeat',
  title: '9. PostgreSQL heartbeat of 10,000 leases vs a hand-written UPDATE … WHERE id = ANY($1) on an equivalent lease table',
  async run(ctx) {
    const sizes = sizesOf(ctx);
    const cluster = await startBenchCluster();
    try {
      const compared = await compareBeats(ctx, (await cluster.database()).url as string, sizes);
      const cadence = await atCadence(ctx, (await cluster.database()).url as string, sizes);
      return { rows: [...compared.rows, ...cadence], notes: compared.notes };
    } finally {
      cluster.stop();
    }
  },
};
