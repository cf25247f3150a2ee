/**
 * What only a real PostgreSQL with several connections (and several stores, as several server
 * processes would open) can show: one grant among parallel acquires, exactly-once receive with
 * SKIP LOCKED, idempotency in flight across processes and its bound when a process dies,
 * outages as StoreUnavailableError with nothing half-written, concurrent migrations, and a
 * clear message for an unreachable database.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineError, type Credential, type KeyConfig } from '../../packages/server/src/engine/index.js';
import {
  SqlStore,
  StoreOpenError,
  StoreUnavailableError,
  createPgDriver,
  knownMigrations,
  migrate,
  migrateStore,
  openStore,
  type Operations,
  type MaybePromise,
} from '../../packages/server/src/store/index.js';
import { freePort } from '../support/postgres-cluster.js';
import { createTestDatabase } from '../support/postgres-database.js';

const KEYS: KeyConfig[] = [{ apiKey: 'lh_c_admin', credentialId: 'cred_c_admin', accountId: 'acct_c' }];
const SPACE = '6f1c2d3e-4b5a-4c6d-8e7f-0a1b2c3d4e5f';
const SCOPE = '0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e';

let url: string;
let drop: () => Promise<void>;
let a: SqlStore;
let b: SqlStore;
let credential: Credential;

const encode = (o: { ok: true; value: unknown } | { ok: false; error: unknown }) =>
  o.ok ? { ok: true as const, value: o.value } : { ok: false as const, code: (o.error as EngineError).code ?? String(o.error) };

function exec<R>(store: SqlStore, op: (ops: Operations) => MaybePromise<R>, extra: Partial<Parameters<SqlStore['execute']>[0]> = {}) {
  return store.execute({ credential, operationId: 't', isStorable: (x: { ok: boolean }) => x.ok, ...extra }, op, encode);
}

beforeAll(async () => {
  ({ url, drop } = await createTestDatabase());
  // Two stores on one database: two server processes, each with its own pool.
  [a, b] = await Promise.all([
    SqlStore.open(createPgDriver({ url, poolSize: 8 }), { keys: KEYS, sweepIntervalMs: 0 }),
    SqlStore.open(createPgDriver({ url, poolSize: 8, idleInTransactionTimeoutMs: 500 }), { keys: KEYS, sweepIntervalMs: 0 }),
  ]);
  const auth = await a.authenticate('Bearer lh_c_admin');
  if (!auth.ok) throw new Error('auth');
  credential = auth.credential;
}, 60_000);

afterAll(async () => {
  await a?.close();
  await b?.close();
  await drop?.();
});

describe('PostgreSQL store under concurrency', () => {
  it('parallel acquires of one key from 16 connections of two processes grant exactly one', async () => {
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        exec(i % 2 ? a : b, (ops) =>
          ops.claims.acquire({ credential, spaceId: SPACE, key: 'contended', scopeId: SCOPE, holder: `w${i}`, holderSession: `s${i}` }),
        ),
      ),
    );
    const codes = answers.map((r) => (r.answer.ok ? 'held' : r.answer.code));
    expect(codes.filter((c) => c === 'held')).toHaveLength(1);
    expect(codes.filter((c) => c === 'claim_held')).toHaveLength(15);
  });

  it('fences only grow across processes while a key changes hands under contention', async () => {
    const fences: number[] = [];
    await Promise.all(
      Array.from({ length: 6 }, async (_, i) => {
        const store = i % 2 ? a : b;
        for (let round = 0; round < 8; round++) {
          const got = await exec(store, (ops) =>
            ops.claims.acquire({ credential, spaceId: SPACE, key: 'relay', scopeId: SCOPE, holder: 'w', holderSession: `s${i}` }),
          );
          if (!got.answer.ok) continue;
          const claim = got.answer.value as { fence: number; token: string };
          fences.push(claim.fence);
          await exec(store, (ops) => ops.claims.release({ credential, spaceId: SPACE, key: 'relay', token: claim.token }));
        }
      }),
    );
    expect(fences.length).toBeGreaterThan(0);
    expect([...fences].sort((x, y) => x - y)).toEqual([...new Set(fences)].sort((x, y) => x - y));
    expect(Math.min(...fences)).toBeGreaterThan(1);
  });

  it('receive hands each message to exactly one of 8 concurrent receivers (FOR UPDATE SKIP LOCKED)', async () => {
    await exec(a, (ops) => ops.spools.createSpool({ credential, name: 'race' }));
    await exec(a, (ops) => ops.spools.putQueue({ credential, spool: 'race', queue: 'q', leaseTimeoutSeconds: 60 }));
    for (let i = 0; i < 60; i++) await exec(a, (ops) => ops.spools.send({ credential, spool: 'race', queue: 'q', body: i }));
    const got: number[] = [];
    await Promise.all(
      Array.from({ length: 8 }, async (_, i) => {
        for (;;) {
          const r = await exec(i % 2 ? a : b, (ops) => ops.spools.receive({ credential, spool: 'race', queue: 'q' }));
          const value = (r.answer as { value: { message: { body: number } } | null }).value;
          if (value === null) return;
          got.push(value.message.body);
        }
      }),
    );
    expect(got.sort((x, y) => x - y)).toEqual(Array.from({ length: 60 }, (_, i) => i));
  });

  it("a queue's activity counts writes from 16 connections of two processes in rows of their own, and its stats add them all up", async () => {
    await exec(a, (ops) => ops.spools.createSpool({ credential, name: 'tally' }));
    await exec(a, (ops) => ops.spools.putQueue({ credential, spool: 'tally', queue: 'q', leaseTimeoutSeconds: 60 }));
    const answer = <T>(r: { answer: unknown }) => (r.answer as { value: T }).value;
    await Promise.all(Array.from({ length: 48 }, (_, i) => exec(i % 2 ? a : b, (ops) => ops.spools.send({ credential, spool: 'tally', queue: 'q', body: i }))));
    const leases = await Promise.all(
      Array.from({ length: 20 }, async (_, i) =>
        answer<{ lease: string }>(await exec(i % 2 ? a : b, (ops) => ops.spools.receive({ credential, spool: 'tally', queue: 'q' }))).lease,
      ),
    );
    await Promise.all(leases.map((lease, i) => exec(i % 2 ? a : b, (ops) => ops.spools.ack({ credential, spool: 'tally', lease }))));
    const doomed = answer<{ message: { handle: string } }>(await exec(a, (ops) => ops.spools.receive({ credential, spool: 'tally', queue: 'q' })));
    await exec(b, (ops) => ops.spools.discard({ credential, spool: 'tally', handle: doomed.message.handle }));
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      // The writers were spread over slots: no single row took every send.
      const { rows } = await client.query<{ slots: number; most: number }>(
        `SELECT count(DISTINCT slot)::int AS slots, max(sent)::int AS most FROM leasehold.queue_tallies t
           JOIN leasehold.queues q ON q.queue_id = t.queue_id WHERE q.spool = 'tally'`,
      );
      expect(rows[0]!.slots).toBeGreaterThan(1);
      expect(rows[0]!.most).toBeLessThan(48);
      // A build before 0014 counts its discards into queue_samples: the stats read that table too.
      await client.query(
        `INSERT INTO leasehold.queue_samples (queue_id, bucket, removed, discarded)
         SELECT queue_id, floor(leasehold.now_ms() / 10000), 1, 1 FROM leasehold.queues WHERE spool = 'tally'
         ON CONFLICT (queue_id, bucket) DO UPDATE SET removed = leasehold.queue_samples.removed + 1, discarded = leasehold.queue_samples.discarded + 1`,
      );
    } finally {
      await client.end();
    }
    const stats = answer<{ data: Array<{ spool: string; queue: string; deadLettered: number; samples: Array<{ sent: number; processed: number }> }> }>(
      await exec(a, (ops) => ops.activity.queueStats({ credential })),
    ).data.find((q) => q.spool === 'tally');
    const total = (field: 'sent' | 'processed') => stats!.samples.reduce((sum, sample) => sum + sample[field], 0);
    expect([total('sent'), total('processed'), stats!.deadLettered]).toEqual([48, 20, 2]);
  });

  it("a queue's tallies stay bounded without a sweep: a slot's first count in a bucket forgets its rows of 10 minutes ago", async () => {
    // One connection: every count of this store lands in one slot. The clock row is moved by hand.
    const single = await SqlStore.open(createPgDriver({ url, poolSize: 1 }), { keys: KEYS, sweepIntervalMs: 0 });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await exec(single, (ops) => ops.spools.createSpool({ credential, name: 'bounded' }));
      await exec(single, (ops) => ops.spools.putQueue({ credential, spool: 'bounded', queue: 'q', leaseTimeoutSeconds: 60 }));
      const start = 1_900_000_000_000;
      const at = (ms: number) => client.query('UPDATE leasehold.clock SET manual = true, manual_ms = $1, offset_ms = 0', [ms]);
      const buckets = async () =>
        (
          await client.query<{ bucket: string; sent: number }>(
            `SELECT t.bucket, t.sent FROM leasehold.queue_tallies t JOIN leasehold.queues q ON q.queue_id = t.queue_id
              WHERE q.spool = 'bounded' ORDER BY t.bucket`,
          )
        ).rows.map((row) => [Number(row.bucket) - start / 10_000, row.sent]);
      for (const minutes of [0, 5, 10, 11]) {
        await at(start + minutes * 60_000);
        await exec(single, (ops) => ops.spools.send({ credential, spool: 'bounded', queue: 'q', body: minutes }));
        await exec(single, (ops) => ops.spools.send({ credential, spool: 'bounded', queue: 'q', body: minutes }));
      }
      // At 10 minutes the bucket of minute 0 went; at 11, nothing more (minute 5 is 6 minutes back).
      expect(await buckets()).toEqual([[30, 2], [60, 2], [66, 2]]);
    } finally {
      await client.query('UPDATE leasehold.clock SET manual = false, manual_ms = 0, offset_ms = 0');
      await client.end();
      await single.close();
    }
  });

  it('an idempotency key in flight in one process is in flight for the other, then replays', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const idempotency = { key: 'cross', fingerprint: 'f' };
    const first = exec(a, (ops) => ops.tasks.create({ credential, title: 'once' }), { idempotency, beforeCommit: () => gate });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await expect(exec(b, (ops) => ops.tasks.create({ credential, title: 'once' }), { idempotency })).rejects.toMatchObject({
      code: 'idempotency_in_flight',
    });
    release();
    const done = await first;
    const replay = await exec(b, () => Promise.reject(new Error('must not run')), { idempotency });
    expect(replay).toEqual({ answer: done.answer, replayed: true });
  });

  it('a process that hangs inside a unit stops blocking its key after idle_in_transaction_session_timeout', async () => {
    const idempotency = { key: 'hung', fingerprint: 'f' };
    let stall!: () => void;
    // b's sessions die after 500 ms idle in a transaction: its unit fails (503), nothing committed.
    const hung = exec(b, (ops) => ops.tasks.create({ credential, title: 'hung' }), {
      idempotency,
      beforeCommit: () => new Promise<void>((resolve) => (stall = resolve)),
    });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const retry = await exec(a, (ops) => ops.tasks.create({ credential, title: 'hung' }), { idempotency });
    expect(retry.replayed).toBe(false);
    expect(retry.answer.ok).toBe(true);
    stall();
    await expect(hung).rejects.toBeInstanceOf(StoreUnavailableError);
    const list = await pgCount("SELECT count(*)::int AS n FROM leasehold.tasks WHERE title = 'hung'");
    expect(list).toBe(1);
  });

  it('a connection lost mid-unit is StoreUnavailableError and leaves nothing half-written', async () => {
    const before = await pgCount("SELECT count(*)::int AS n FROM leasehold.tasks WHERE title = 'lost'");
    const unit = exec(a, async (ops) => {
      await ops.tasks.create({ credential, title: 'lost' });
      await killBackends();
      return ops.tasks.create({ credential, title: 'lost' });
    });
    await expect(unit).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(await pgCount("SELECT count(*)::int AS n FROM leasehold.tasks WHERE title = 'lost'")).toBe(before);
    // The pool recovers: the next unit runs.
    const next = await exec(a, (ops) => ops.tasks.create({ credential, title: 'after' }));
    expect(next.answer.ok).toBe(true);
  });
});

describe('migrations and opening', () => {
  it('two processes migrating a fresh database at once do not collide', async () => {
    const fresh = await createTestDatabase();
    const drivers = [createPgDriver({ url: fresh.url }), createPgDriver({ url: fresh.url })];
    const reports = await Promise.all(drivers.map((d) => migrate(d)));
    // One applies every migration, the other waits and then finds nothing to do.
    const all = knownMigrations();
    expect(all.length).toBeGreaterThan(1);
    expect(reports.map((r) => r.applied.length).sort()).toEqual([0, all.length]);
    expect(reports[0]?.current).toEqual(all);
    expect(await migrateStore(fresh.url)).toEqual({ applied: [], current: all });
    await Promise.all(drivers.map((d) => d.close()));
    await fresh.drop();
  });

  it('an unreachable database or a malformed URL is a clear StoreOpenError, without the password', async () => {
    const port = await freePort();
    const opening = openStore(`postgres://leasehold:s3cret@127.0.0.1:${port}/leasehold`, { connectTimeoutMs: 2000 });
    await expect(opening).rejects.toBeInstanceOf(StoreOpenError);
    await expect(opening).rejects.toThrow(/Cannot connect to PostgreSQL at postgres:\/\/leasehold:\*\*\*@127\.0\.0\.1:\d+\/leasehold: ECONNREFUSED/);
    await expect(opening).rejects.not.toThrow(/s3cret/);
    await expect(openStore('postgres://[oops')).rejects.toThrow(/not a valid PostgreSQL URL/);
    await expect(openStore('mysql://x')).rejects.toThrow(/use memory, a postgres:\/\/ URL or a directory/);
  });
});

async function pgCount(sql: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return ((await client.query(sql)).rows[0] as { n: number }).n;
  } finally {
    await client.end();
  }
}

async function killBackends(): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(
    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'leasehold-server' AND pid <> pg_backend_pid()",
  );
  await client.end();
}
