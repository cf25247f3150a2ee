/**
 * Hand-over (the sweep, and every lazy expiry on touch: `settle_key`, `pass_on`) beside the
 * transactions of other processes on a real PostgreSQL. What the chaos suite turned up on this
 * store, as deterministic reproductions: the sweep skips a key whose row, or one of whose leases,
 * another transaction holds — it never waits for it until `lock_timeout` fails the whole pass
 * (and `advanceClock`, which sweeps, after it moved the clock); and a renew, or a heartbeat
 * extending a wait, that commits while a touch of the key waits for the lease's row wins — the
 * lease is not then ended, nor the waiter lapsed, on the `expires_at` read before it committed.
 */
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Credential, EngineError, KeyConfig } from '../../packages/server/src/engine/index.js';
import { SqlStore, createPgDriver, type MaybePromise, type Operations } from '../../packages/server/src/store/index.js';
import { createTestDatabase } from '../support/postgres-database.js';

const KEYS: KeyConfig[] = [{ apiKey: 'lh_sweep_admin', credentialId: 'cred_sweep_admin', accountId: 'acct_sweep' }];
const SPACE = '3a4b5c6d-7e8f-4a0b-9c1d-2e3f4a5b6c7d';
const SCOPE = '9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a';

let db: { url: string; drop: () => Promise<void> };
let store: SqlStore;
let credential: Credential;
let other: pg.Client;
/** Lets a held transaction commit (so a failed test does not leave it open). */
let letGo: (() => void) | undefined;

/** A gate a transaction waits on before its commit, opened by `open()` (or after the test). */
function gate(): { wait: () => Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  letGo = open;
  return { wait: () => opened, open };
}

const encode = (o: { ok: true; value: unknown } | { ok: false; error: unknown }) =>
  o.ok ? { ok: true as const, value: o.value } : { ok: false as const, code: (o.error as EngineError).code ?? String(o.error) };

function exec<R>(op: (ops: Operations) => MaybePromise<R>, extra: Partial<Parameters<SqlStore['execute']>[0]> = {}) {
  return store.execute({ credential, operationId: 't', isStorable: (x: { ok: boolean }) => x.ok, ...extra }, op, encode);
}

async function acquire(key: string, leaseSeconds = 30, wait = false): Promise<{ claimId: string; token: string; status: string }> {
  const got = await exec((ops) =>
    ops.claims.acquire({ credential, spaceId: SPACE, key, scopeId: SCOPE, holder: wait ? 'waiter' : 'w', holderSession: wait ? 'sw' : 's', leaseSeconds, wait }),
  );
  if (!got.answer.ok) throw new Error(`acquire ${key}: ${got.answer.code}`);
  return got.answer.value as { claimId: string; token: string; status: string };
}

async function leaseOf(claimId: string): Promise<{ status: string; lost_reason: string | null; expires_at: number }> {
  const { rows } = await other.query('SELECT status, lost_reason, expires_at::float8 AS expires_at FROM leasehold.leases WHERE claim_id = $1', [claimId]);
  return rows[0] as { status: string; lost_reason: string | null; expires_at: number };
}

/** Resolves once the lease's row is locked by a transaction in flight (probed with SKIP LOCKED). */
async function someoneHolds(claimId: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const { rows } = await other.query('SELECT lease_id FROM leasehold.leases WHERE claim_id = $1 FOR UPDATE SKIP LOCKED', [claimId]);
    if (rows.length === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`no transaction holds the row of ${claimId}`);
}

/** Resolves once a statement of this database waits for a row lock. */
async function someoneWaitsForALock(): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const { rows } = await other.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'");
    if ((rows[0] as { n: number }).n > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('no statement waited for a lock');
}

beforeEach(async () => {
  db = await createTestDatabase();
  // A short lock_timeout: a statement that waits for a row where it should not fails quickly.
  store = await SqlStore.open(createPgDriver({ url: db.url, poolSize: 4, lockTimeoutMs: 500 }), { clock: 'manual', keys: KEYS, sweepIntervalMs: 0 });
  const auth = await store.authenticate('Bearer lh_sweep_admin');
  if (!auth.ok) throw new Error('auth');
  credential = auth.credential;
  other = new pg.Client({ connectionString: db.url });
  await other.connect();
}, 60_000);

afterEach(async () => {
  letGo?.();
  await other?.end();
  await store?.close();
  await db?.drop();
});

describe('the sweep beside other transactions (PostgreSQL)', () => {
  it('skips a due key whose row another transaction holds, and settles it once that transaction ends', async () => {
    const due = await acquire('locked');
    const free = await acquire('free');
    await other.query('BEGIN');
    await other.query("SELECT 1 FROM leasehold.space_keys WHERE key = 'locked' FOR UPDATE");
    // Both leases fall due; the sweep advanceClock runs hands over what it can and skips the locked key.
    await expect(store.controls.advanceClock(60_000)).resolves.toBeGreaterThan(0);
    expect(await leaseOf(free.claimId)).toMatchObject({ status: 'lost', lost_reason: 'expired' });
    expect((await leaseOf(due.claimId)).status).toBe('held');
    await other.query('COMMIT');
    await store.sweepAll();
    expect(await leaseOf(due.claimId)).toMatchObject({ status: 'lost', lost_reason: 'expired' });
  });

  it('skips a due key one of whose leases a renew in flight holds, and the renew keeps the lease', async () => {
    const claim = await acquire('renewing', 30);
    await store.controls.advanceClock(20_000);
    // The renew decides at +20 s (due at +30 s, so it extends to +80 s) and holds its row until let go.
    const { wait, open: commit } = gate();
    const renewing = exec((ops) => ops.claims.renew({ credential, spaceId: SPACE, key: 'renewing', token: claim.token, leaseSeconds: 60 }), {
      beforeCommit: wait,
    });
    await someoneHolds(claim.claimId);
    // The clock passes the old expiry (+35 s) while the renew is in flight: the sweep leaves the key.
    await expect(store.controls.advanceClock(15_000)).resolves.toBeGreaterThan(0);
    commit();
    expect((await renewing).answer.ok).toBe(true);
    await store.sweepAll();
    expect(await leaseOf(claim.claimId)).toMatchObject({ status: 'held', lost_reason: null });
  });

  it('a renew that commits while a rival acquire waits for the lease\'s row keeps the key: the rival is refused', async () => {
    const claim = await acquire('renewed', 30);
    await store.controls.advanceClock(20_000);
    const { wait, open: commit } = gate();
    const renewing = exec((ops) => ops.claims.renew({ credential, spaceId: SPACE, key: 'renewed', token: claim.token, leaseSeconds: 60 }), {
      beforeCommit: wait,
    });
    await someoneHolds(claim.claimId);
    await store.controls.advanceClock(15_000);
    // The rival's acquire at +35 s settles the key: by the row it can read, the holder expired at +30 s.
    const rival = exec((ops) => ops.claims.acquire({ credential, spaceId: SPACE, key: 'renewed', scopeId: SCOPE, holder: 'rival', holderSession: 'sr' }));
    await someoneWaitsForALock();
    commit();
    expect((await renewing).answer.ok).toBe(true);
    // The holder was told +80 s: the key is still its own.
    expect((await rival).answer).toEqual({ ok: false, code: 'claim_held' });
    expect(await leaseOf(claim.claimId)).toMatchObject({ status: 'held', lost_reason: null });
  });

  it('a waiter whose wait a heartbeat extends while a hand-over waits for its row is granted the key, not lapsed', async () => {
    const holder = await acquire('queue', 30);
    const waiter = await acquire('queue', 10, true);
    expect(waiter.status).toBe('queued');
    await store.controls.advanceClock(5_000);
    // The heartbeat at +5 s extends the wait (due at +10 s) to +65 s and holds the waiter's row until let go.
    const { wait, open: commit } = gate();
    const beating = exec((ops) => ops.heartbeat({ credential, ttl: 60, holderSession: 'sw', claimIds: [waiter.claimId] }), { beforeCommit: wait });
    await someoneHolds(waiter.claimId);
    await store.controls.advanceClock(30_000);
    // A rival's acquire at +35 s hands the key over at the holder's expiry (+30 s), reading the waiter's old wait (+10 s).
    const rival = exec((ops) => ops.claims.acquire({ credential, spaceId: SPACE, key: 'queue', scopeId: SCOPE, holder: 'rival', holderSession: 'sr' }));
    await someoneWaitsForALock();
    commit();
    expect((await beating).answer).toMatchObject({ ok: true, value: { results: [{ claimId: waiter.claimId, status: 'queued' }] } });
    expect((await rival).answer).toEqual({ ok: false, code: 'claim_held' });
    expect(await leaseOf(holder.claimId)).toMatchObject({ status: 'lost', lost_reason: 'expired' });
    expect(await leaseOf(waiter.claimId)).toMatchObject({ status: 'held', lost_reason: null });
  });
});
