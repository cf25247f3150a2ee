/**
 * The lease event feed in commit order on PostgreSQL: two writers on two connections, each in
 * an explicit transaction held open before its commit; the one that wrote the lower event id
 * commits last. A reader that follows the feed (cursor after cursor, as `/v1/events` and the
 * SSE stream's `Last-Event-ID` do) sees every committed event exactly once, in the order they
 * became visible, with cursors in the `evt_<n>` format clients already keep.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Claim, Credential, EngineError, KeyConfig, LeaseEvent } from '../../packages/server/src/engine/index.js';
import { SqlStore, createPgDriver, type MaybePromise, type Operations } from '../../packages/server/src/store/index.js';
import { createTestDatabase } from '../support/postgres-database.js';

const KEYS: KeyConfig[] = [{ apiKey: 'lh_feed_admin', credentialId: 'cred_feed_admin', accountId: 'acct_feed' }];
const SPACE = '7a1c2d3e-4b5a-4c6d-8e7f-0a1b2c3d4e5f';
const SCOPE = '1b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e';

let drop: () => Promise<void>;
let writer: SqlStore;
let reader: SqlStore;
let credential: Credential;

const encode = (o: { ok: true; value: unknown } | { ok: false; error: unknown }) =>
  o.ok ? { ok: true as const, value: o.value } : { ok: false as const, code: (o.error as EngineError).code ?? String(o.error) };

function exec<R>(store: SqlStore, op: (ops: Operations) => MaybePromise<R>, beforeCommit?: () => Promise<void>) {
  return store.execute({ credential, operationId: 't', isStorable: (x: { ok: boolean }) => x.ok, beforeCommit }, op, encode);
}

/** An acquire whose transaction stays open (its event written, uncommitted) until `commit()`. */
async function heldAcquire(key: string): Promise<{ commit: () => Promise<Claim> }> {
  let written!: () => void;
  let release!: () => void;
  const atCommit = new Promise<void>((resolve) => (written = resolve));
  const gate = new Promise<void>((resolve) => (release = resolve));
  const unit = exec(
    writer,
    (ops) => ops.claims.acquire({ credential, spaceId: SPACE, key, scopeId: SCOPE, holder: `w-${key}`, holderSession: `s-${key}` }),
    () => (written(), gate),
  );
  await atCommit;
  return {
    async commit() {
      release();
      const settled = await unit;
      if (!settled.answer.ok) throw new Error(`acquire ${key}: ${JSON.stringify(settled.answer)}`);
      return settled.answer.value as Claim;
    },
  };
}

/** Follow the feed from `cursor` to its end: the events read and the cursor to resume at. */
async function follow(cursor: string | undefined): Promise<{ events: LeaseEvent[]; cursor: string }> {
  const events: LeaseEvent[] = [];
  for (let page = 0; page < 20; page++) {
    const settled = await exec(reader, (ops) => ops.activity.events({ credential, cursor, limit: 2 }));
    if (!settled.answer.ok) throw new Error(JSON.stringify(settled.answer));
    const list = settled.answer.value as { data: LeaseEvent[]; nextCursor: string; hasMore: boolean };
    events.push(...list.data);
    cursor = list.nextCursor;
    if (!list.hasMore) return { events, cursor };
  }
  throw new Error('the feed did not end within 20 pages');
}

beforeAll(async () => {
  const db = await createTestDatabase();
  drop = db.drop;
  // Two stores on one database: a writing process and a reading one, each with its own pool.
  writer = await SqlStore.open(createPgDriver({ url: db.url, poolSize: 8 }), { keys: KEYS, sweepIntervalMs: 0 });
  reader = await SqlStore.open(createPgDriver({ url: db.url, poolSize: 2 }), { keys: KEYS, sweepIntervalMs: 0 });
  const auth = await writer.authenticate('Bearer lh_feed_admin');
  if (!auth.ok) throw new Error('auth');
  credential = auth.credential;
}, 60_000);

afterAll(async () => {
  await writer?.close();
  await reader?.close();
  await drop?.();
});

describe('the event feed on PostgreSQL', () => {
  it('delivers an event whose transaction commits after a higher-numbered one, exactly once', async () => {
    const start = await follow(undefined);
    expect(start.events).toEqual([]);
    expect(start.cursor).toMatch(/^evt_\d+$/);

    const low = await heldAcquire('low'); // writes the lower event id, commits last
    const high = await heldAcquire('high');
    const highClaim = await high.commit();
    const first = await follow(start.cursor);
    expect(first.events.map((e) => [e.type, e.key])).toEqual([['granted', 'high']]);
    expect(first.events[0]?.claimId).toBe(highClaim.claimId);

    const lowClaim = await low.commit();
    const second = await follow(first.cursor);
    expect(second.events.map((e) => [e.type, e.key, e.claimId])).toEqual([['granted', 'low', lowClaim.claimId]]);
    expect(second.cursor).toMatch(/^evt_\d+$/);

    // Nothing twice: the feed from the start is both, in the order they became visible; from the end, nothing.
    expect((await follow(undefined)).events.map((e) => e.key)).toEqual(['high', 'low']);
    expect((await follow(second.cursor)).events).toEqual([]);
  });

  it('pages through many concurrent writers without a gap or a repeat', async () => {
    const start = await follow(undefined);
    const held = [];
    for (let i = 0; i < 6; i++) held.push(await heldAcquire(`k${i}`));
    const seen: string[] = [];
    let cursor = start.cursor;
    // Commit from the last writer to the first, reading after each commit.
    for (const unit of held.reverse()) {
      await unit.commit();
      const page = await follow(cursor);
      seen.push(...page.events.map((e) => e.key ?? ''));
      cursor = page.cursor;
    }
    expect(seen).toEqual(['k5', 'k4', 'k3', 'k2', 'k1', 'k0']);
    expect(new Set((await follow(start.cursor)).events.map((e) => e.id)).size).toBe(6);
  });
});
