/**
 * Renewals as HOT updates (migration 0013, docs/storage.md "Speed: the heartbeat"): no index of
 * `leases` names `expires_at`, so a heartbeat or a renew rewrites the lease row in place, on its
 * page, with no new index entry — read on PostgreSQL from the heap pages themselves
 * (`pageinspect`: the current version of each row is a heap-only tuple). What falls due is found
 * by `due_at`, a lower bound of the expiry that renewals leave alone unless they shorten the lease
 * and that the sweep moves on: a key still passes to its waiter at its holder's expiry, on
 * PostgreSQL and on PGlite, however the holder's term was lengthened and shortened before.
 */
import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import type { Credential, EngineError, KeyConfig } from '../../packages/server/src/engine/index.js';
import { SqlStore, createPgDriver, createPgliteDriver, openPglite, type MaybePromise, type Operations } from '../../packages/server/src/store/index.js';
import { createTestDatabase } from '../support/postgres-database.js';

const KEYS: KeyConfig[] = [{ apiKey: 'lh_hot_admin', credentialId: 'cred_hot_admin', accountId: 'acct_hot' }];
const SPACE = '5b6c7d8e-9f0a-4b1c-8d2e-3f4a5b6c7d8e';
const SCOPE = '1e2d3c4b-5a69-4788-9a0b-c1d2e3f4a5b6';

interface Harness {
  store: SqlStore;
  credential: Credential;
  sql<T>(text: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function withCredential(store: SqlStore): Promise<Credential> {
  const auth = await store.authenticate('Bearer lh_hot_admin');
  if (!auth.ok) throw new Error('auth');
  return auth.credential;
}

async function onPostgres(): Promise<Harness & { client: pg.Client }> {
  const db = await createTestDatabase();
  const store = await SqlStore.open(createPgDriver({ url: db.url, poolSize: 2 }), { clock: 'manual', keys: KEYS, sweepIntervalMs: 0 });
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  const close = async () => {
    await client.end();
    await store.close();
    await db.drop();
  };
  cleanups.push(close);
  return { store, client, credential: await withCredential(store), sql: async (text, params) => (await client.query(text, params)).rows, close };
}

async function onPglite(): Promise<Harness> {
  const db: PGlite = await openPglite();
  const store = await SqlStore.open(await createPgliteDriver({ database: db }), { clock: 'manual', keys: KEYS, sweepIntervalMs: 0 });
  const close = () => store.close();
  cleanups.push(close);
  return { store, credential: await withCredential(store), sql: async (text, params) => (await db.query(text, params)).rows as never, close };
}

const encode = (o: { ok: true; value: unknown } | { ok: false; error: unknown }) =>
  o.ok ? { ok: true as const, value: o.value } : { ok: false as const, code: (o.error as EngineError).code ?? String(o.error) };

async function run<R>(h: Harness, op: (ops: Operations, credential: Credential) => MaybePromise<R>): Promise<R> {
  const { answer } = await h.store.execute({ credential: h.credential, operationId: 't', isStorable: () => true }, (ops) => op(ops, h.credential), encode);
  if (!answer.ok) throw new Error(answer.code);
  return answer.value as R;
}

function acquire(h: Harness, key: string, leaseSeconds: number, session: string, wait = false) {
  return run(h, (ops, credential) =>
    ops.claims.acquire({ credential, spaceId: SPACE, key, scopeId: SCOPE, holder: session, holderSession: session, leaseSeconds, wait }),
  ) as Promise<{ claimId: string; token: string; status: string }>;
}

interface LeaseRow {
  status: string;
  lost_reason: string | null;
  expires_at: number;
  due_at: number;
  acquired_at: number;
}

async function leaseOf(h: Harness, claimId: string): Promise<LeaseRow> {
  const rows = await h.sql<LeaseRow>(
    `SELECT status, lost_reason, expires_at::float8 AS expires_at, due_at::float8 AS due_at, acquired_at::float8 AS acquired_at
       FROM leasehold.leases WHERE claim_id = $1`,
    [claimId],
  );
  return rows[0] as LeaseRow;
}

/** Whether the current version of each lease row is a heap-only tuple (written by a HOT update). */
async function heapOnly(h: Harness, claimIds: string[]): Promise<boolean[]> {
  await h.sql('CREATE EXTENSION IF NOT EXISTS pageinspect');
  const rows = await h.sql<{ claim_id: string; heap_only: boolean }>(
    `SELECT l.claim_id, (p.t_infomask2 & 32768) <> 0 AS heap_only
       FROM leasehold.leases l,
            LATERAL heap_page_items(get_raw_page('leasehold.leases', (l.ctid::text::point)[0]::int)) p
      WHERE p.lp = (l.ctid::text::point)[1]::int AND l.claim_id = ANY($1)`,
    [claimIds],
  );
  return claimIds.map((id) => rows.find((r) => r.claim_id === id)?.heap_only ?? false);
}

describe('renewals rewrite the lease row in place (PostgreSQL)', () => {
  it('a heartbeat renews held claims, a waiter and a task claim as HOT updates, beat after beat', async () => {
    const h = await onPostgres();
    const held = await Promise.all(Array.from({ length: 20 }, (_, i) => acquire(h, `k${i}`, 30, 'beat')));
    const waiter = await acquire(h, 'k0', 30, 'beat', true);
    expect(waiter.status).toBe('queued');
    const { task, etag } = await run(h, (ops, credential) => ops.tasks.create({ credential, title: 'hot' }));
    const taskClaim = await run(h, (ops, credential) => ops.tasks.claim({ credential, taskId: task.id, ifMatch: etag, holderSession: 'beat' }));
    const ids = [...held.map((c) => c.claimId), waiter.claimId, taskClaim.claim.claimId];
    for (let beat = 0; beat < 3; beat++) {
      await h.store.controls.advanceClock(5_000);
      const answer = await run(h, (ops, credential) => ops.heartbeat({ credential, ttl: 30, holderSession: 'beat' }));
      expect(answer.results).toHaveLength(ids.length);
      expect(await heapOnly(h, ids)).toEqual(ids.map(() => true));
    }
  });

  it('a renew that lengthens the claim is a HOT update', async () => {
    const h = await onPostgres();
    const claim = await acquire(h, 'single', 30, 'one');
    await h.store.controls.advanceClock(10_000);
    await run(h, (ops, credential) => ops.claims.renew({ credential, spaceId: SPACE, key: 'single', token: claim.token, leaseSeconds: 60 }));
    expect(await heapOnly(h, [claim.claimId])).toEqual([true]);
  });
});

describe.each([
  ['PostgreSQL', onPostgres],
  ['PGlite', onPglite],
] as const)('what falls due is still found on time (%s)', (_name, open) => {
  it('a key passes to its waiter at its holder\'s expiry after a heartbeat lengthened the term and a renew shortened it', async () => {
    const h = await open();
    const start = (await h.sql<{ now: number }>('SELECT leasehold.now_ms()::float8 AS now'))[0]?.now as number;
    const holder = await acquire(h, 'queue', 30, 'holder');
    const waiter = await acquire(h, 'queue', 600, 'waiter', true);
    expect(await leaseOf(h, holder.claimId)).toMatchObject({ expires_at: start + 30_000, due_at: start + 30_000 });
    // +20 s: the heartbeat extends the holder to +80 s and leaves its due time alone (a HOT update).
    await h.store.controls.advanceClock(20_000);
    await run(h, (ops, credential) => ops.heartbeat({ credential, ttl: 60, holderSession: 'holder' }));
    expect(await leaseOf(h, holder.claimId)).toMatchObject({ expires_at: start + 80_000, due_at: start + 30_000 });
    // +35 s: the sweep finds the due time passed and the lease renewed, and moves it on to the expiry.
    await h.store.controls.advanceClock(15_000);
    expect(await leaseOf(h, holder.claimId)).toMatchObject({ status: 'held', expires_at: start + 80_000, due_at: start + 80_000 });
    expect((await leaseOf(h, waiter.claimId)).status).toBe('queued');
    // A renew for 10 s shortens the term to +45 s: the due time comes down with it.
    await run(h, (ops, credential) => ops.claims.renew({ credential, spaceId: SPACE, key: 'queue', token: holder.token, leaseSeconds: 10 }));
    expect(await leaseOf(h, holder.claimId)).toMatchObject({ expires_at: start + 45_000, due_at: start + 45_000 });
    // +46 s: the sweep hands the key over at the holder's expiry, with nothing touching the key.
    await h.store.controls.advanceClock(11_000);
    expect(await leaseOf(h, holder.claimId)).toMatchObject({ status: 'lost', lost_reason: 'expired' });
    expect(await leaseOf(h, waiter.claimId)).toMatchObject({ status: 'held', acquired_at: start + 45_000, due_at: start + 45_000 + 600_000 });
  });

  it('an expired task claim is forgotten 10 minutes after its expiry, however often it was renewed', async () => {
    const h = await open();
    const { task, etag } = await run(h, (ops, credential) => ops.tasks.create({ credential, title: 'due' }));
    const claim = await run(h, (ops, credential) => ops.tasks.claim({ credential, taskId: task.id, ifMatch: etag, holderSession: 'w' }));
    for (let i = 0; i < 3; i++) {
      await h.store.controls.advanceClock(20_000);
      await run(h, (ops, credential) => ops.heartbeat({ credential, ttl: 30, holderSession: 'w' }));
    }
    const lease = await leaseOf(h, claim.claim.claimId);
    // Left to expire: the sweep moves its due time on to when the row is forgotten, then forgets it.
    await h.store.controls.advanceClock(lease.expires_at - (await h.sql<{ now: number }>('SELECT leasehold.now_ms()::float8 AS now'))[0]!.now + 1);
    expect(await leaseOf(h, claim.claim.claimId)).toMatchObject({ status: 'held', due_at: lease.expires_at + 600_000 });
    await h.store.controls.advanceClock(600_000);
    expect(await leaseOf(h, claim.claim.claimId)).toBeUndefined();
    const [row] = await h.sql<{ last_claim_outcome: string; last_claim_ended_at: number }>(
      'SELECT last_claim_outcome, last_claim_ended_at::float8 AS last_claim_ended_at FROM leasehold.tasks WHERE task_id = $1',
      [task.id],
    );
    expect(row).toEqual({ last_claim_outcome: 'expired', last_claim_ended_at: lease.expires_at });
  });
});
