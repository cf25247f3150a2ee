/**
 * The SQL store's unit of work decides late what it needs: a renew is ONE statement (the
 * idempotency check, the write and the record in one function call), an operation that sends
 * nothing costs nothing, and records stored either way replay either way. On PGlite and on
 * PostgreSQL (where two stores stand for two processes).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineError, type Claim, type Credential, type KeyConfig } from '../../packages/server/src/engine/index.js';
import {
  SqlStore,
  createPgDriver,
  createPgliteDriver,
  type ExecuteResult,
  type MaybePromise,
  type Operations,
  type SqlDriver,
} from '../../packages/server/src/store/index.js';
import { createTestDatabase } from '../support/postgres-database.js';

const KEYS: KeyConfig[] = [{ apiKey: 'lh_r_admin', credentialId: 'cred_r_admin', accountId: 'acct_r' }];
const SPACE = '6f1c2d3e-4b5a-4c6d-8e7f-0a1b2c3d4e5f';
const SCOPE = '0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e';

type Answer = { ok: true; value: unknown } | { ok: false; code: string };
const encode = (o: { ok: true; value: unknown } | { ok: false; error: unknown }): Answer =>
  o.ok ? { ok: true, value: JSON.parse(JSON.stringify(o.value ?? null)) } : { ok: false, code: (o.error as EngineError).code };

interface Harness {
  store: SqlStore;
  queries: string[];
  credential: Credential;
  exec(op: (ops: Operations) => MaybePromise<unknown>, extra?: Partial<Parameters<SqlStore['execute']>[0]>, enc?: typeof encode): Promise<ExecuteResult<Answer>>;
  /** What `fn` sent. */
  sent(fn: () => Promise<unknown>): Promise<string[]>;
}

async function harness(store: SqlStore, queries: string[]): Promise<Harness> {
  const auth = await store.authenticate('Bearer lh_r_admin');
  if (!auth.ok) throw new Error('auth');
  const credential = auth.credential;
  return {
    store,
    queries,
    credential,
    exec: (op, extra = {}, enc = encode) =>
      store.execute({ credential, operationId: 'renewSpaceClaim', isStorable: (a: Answer) => a.ok, ...extra }, op, enc),
    async sent(fn) {
      const from = queries.length;
      await fn();
      return queries.slice(from);
    },
  };
}

let n = 0;
async function acquire(h: Harness, leaseSeconds = 60): Promise<Claim> {
  const key = `k${n++}`;
  const r = await h.exec((ops) => ops.claims.acquire({ credential: h.credential, spaceId: SPACE, key, scopeId: SCOPE, holder: 'w', holderSession: 's', leaseSeconds }));
  if (!r.answer.ok) throw new Error(r.answer.code);
  return r.answer.value as Claim;
}

const renew = (h: Harness, claim: Claim, leaseSeconds = 60) => (ops: Operations) =>
  ops.claims.renew({ credential: h.credential, spaceId: SPACE, key: claim.key, token: claim.token as string, leaseSeconds });

function suite(kind: 'pglite' | 'postgres', open: (onQuery: (text: string) => void) => Promise<{ store: SqlStore; driver: SqlDriver }>): void {
  describe(`one round trip — ${kind}`, () => {
    let h: Harness;
    let driver: SqlDriver;
    beforeAll(async () => {
      const queries: string[] = [];
      const opened = await open((text) => queries.push(text));
      driver = opened.driver;
      h = await harness(opened.store, queries);
    }, 60_000);
    afterAll(() => h?.store.close());

    /** Neither the secret nor its bytes in hex appear in any lease row or idempotency record (a dump hands out no live token). */
    async function expectNowhereInDatabase(secret: string): Promise<void> {
      const { rows } = await driver.query<{ dump: string }>(
        `SELECT (SELECT string_agg(r::text, E'\\n') FROM leasehold.idempotency_records r) || E'\\n' ||
                (SELECT string_agg(l::text, E'\\n') FROM leasehold.leases l) AS dump`,
      );
      const dump = rows[0]?.dump ?? '';
      expect(dump.length).toBeGreaterThan(0);
      expect(dump).not.toContain(secret);
      expect(dump).not.toContain(Buffer.from(secret, 'utf8').toString('hex'));
      expect(dump).not.toContain(Buffer.from(secret, 'utf8').toString('base64'));
    }

    it('a renew is one statement with or without a key, and its replay is one statement too', async () => {
      const claim = await acquire(h);
      const idempotency = { key: `r-${kind}-1`, fingerprint: 'POST renew 1' };
      let first!: ExecuteResult<Answer>;
      expect(await h.sent(async () => (first = await h.exec(renew(h, claim), { idempotency })))).toHaveLength(1);
      expect(first).toMatchObject({ replayed: false, answer: { ok: true, value: { claimId: claim.claimId, status: 'held' } } });
      let replay!: ExecuteResult<Answer>;
      expect(await h.sent(async () => (replay = await h.exec(renew(h, claim, 90), { idempotency })))).toHaveLength(1);
      expect(replay).toEqual({ answer: first.answer, replayed: true });
      await expect(h.exec(renew(h, claim), { idempotency: { ...idempotency, fingerprint: 'other' } })).rejects.toMatchObject({
        code: 'idempotency_key_reused',
      });
      expect(await h.sent(() => h.exec(renew(h, claim)))).toHaveLength(1);
    });

    it('a refused renew is kept for replays only when storable; nothing else is written', async () => {
      const claim = await acquire(h, 10);
      await h.store.controls.advanceClock(11_000);
      const all = { idempotency: { key: `r-${kind}-2`, fingerprint: 'f' }, isStorable: () => true };
      expect(await h.exec(renew(h, claim), all)).toEqual({ answer: { ok: false, code: 'lease_expired' }, replayed: false });
      expect(await h.exec(() => Promise.reject(new Error('not run')), all)).toEqual({ answer: { ok: false, code: 'lease_expired' }, replayed: true });
      const successesOnly = { idempotency: { key: `r-${kind}-3`, fingerprint: 'f' } };
      expect(await h.exec(renew(h, claim), successesOnly)).toMatchObject({ answer: { code: 'lease_expired' }, replayed: false });
      expect(await h.exec(renew(h, claim), successesOnly)).toMatchObject({ answer: { code: 'lease_expired' }, replayed: false });
    });

    it('records replay across paths: stored in one statement, replayed in a transaction, and the other way round', async () => {
      const claim = await acquire(h);
      const beforeCommit = () => Promise.resolve();
      const one = { idempotency: { key: `r-${kind}-4`, fingerprint: 'f' } };
      const first = await h.exec(renew(h, claim), one);
      expect(await h.exec(renew(h, claim, 120), { ...one, beforeCommit })).toEqual({ answer: first.answer, replayed: true });
      const slow = { idempotency: { key: `r-${kind}-5`, fingerprint: 'f' }, beforeCommit };
      const stored = await h.exec(renew(h, claim), slow);
      expect(stored).toMatchObject({ answer: { ok: true }, replayed: false });
      expect(await h.exec(renew(h, claim, 120), { idempotency: slow.idempotency })).toEqual({ answer: stored.answer, replayed: true });
    });

    it('an encode that throws after a one-statement renew forgets the record, so the retry runs again', async () => {
      const claim = await acquire(h);
      const idempotency = { key: `r-${kind}-6`, fingerprint: 'f' };
      await expect(h.exec(renew(h, claim), { idempotency }, () => { throw new Error('cannot encode'); })).rejects.toThrow('cannot encode');
      expect(await h.exec(renew(h, claim), { idempotency })).toMatchObject({ answer: { ok: true }, replayed: false });
      // A success the caller does not keep is not replayed either.
      const kept = { idempotency: { key: `r-${kind}-7`, fingerprint: 'f' }, isStorable: () => false };
      expect(await h.exec(renew(h, claim), kept)).toMatchObject({ replayed: false });
      expect(await h.exec(renew(h, claim), kept)).toMatchObject({ replayed: false });
    });

    it('an acquire is one statement with or without a key, and its replay answers the first token, kept sealed', async () => {
      const acquireOf = (key: string) => (ops: Operations) =>
        ops.claims.acquire({ credential: h.credential, spaceId: SPACE, key, scopeId: SCOPE, holder: 'w', holderSession: 's' });
      let plain!: ExecuteResult<Answer>;
      expect(await h.sent(async () => (plain = await h.exec(acquireOf(`a-${kind}-1`))))).toHaveLength(1);
      expect(plain.answer).toMatchObject({ ok: true, value: { status: 'held', token: expect.stringMatching(/^lht_/) } });
      expect(await h.sent(() => h.exec(acquireOf(`a-${kind}-1`)))).toHaveLength(1);
      expect(await h.exec(acquireOf(`a-${kind}-1`))).toMatchObject({ answer: { ok: false, code: 'claim_held' } });
      const idempotency = { key: `a-${kind}-2`, fingerprint: 'f' };
      let keyed!: ExecuteResult<Answer>;
      expect(await h.sent(async () => (keyed = await h.exec(acquireOf(`a-${kind}-2`), { idempotency })))).toHaveLength(1);
      let replay!: ExecuteResult<Answer>;
      expect(await h.sent(async () => (replay = await h.exec(acquireOf(`a-${kind}-2`), { idempotency })))).toHaveLength(1);
      expect(replay).toEqual({ answer: keyed.answer, replayed: true });
      const token = (replay.answer as { value: Claim }).value.token as string;
      expect(token).toMatch(/^lht_/);
      await expectNowhereInDatabase(token);
      // The replayed token is the one that holds the key: it renews.
      const claim = (keyed.answer as { value: Claim }).value;
      expect(await h.exec(renew(h, claim))).toMatchObject({ answer: { ok: true, value: { claimId: claim.claimId } } });
      // A waiting acquire under a key: queued, one statement, replayed with its token.
      const queuedKey = { idempotency: { key: `a-${kind}-3`, fingerprint: 'f' } };
      const waitFor = (ops: Operations) =>
        ops.claims.acquire({ credential: h.credential, spaceId: SPACE, key: `a-${kind}-2`, scopeId: SCOPE, holder: 'v', holderSession: 's2', wait: true });
      let queued!: ExecuteResult<Answer>;
      expect(await h.sent(async () => (queued = await h.exec(waitFor, queuedKey)))).toHaveLength(1);
      expect(queued.answer).toMatchObject({ ok: true, value: { status: 'queued' } });
      expect(await h.exec(waitFor, queuedKey)).toEqual({ answer: queued.answer, replayed: true });
      // A refused acquire under a key writes its record apart (a refusal keeps no outcome), and replays.
      const heldKey = { idempotency: { key: `a-${kind}-4`, fingerprint: 'f' }, isStorable: () => true };
      expect(await h.exec(acquireOf(`a-${kind}-2`), heldKey)).toMatchObject({ answer: { ok: false, code: 'claim_held' }, replayed: false });
      expect(await h.exec(acquireOf(`a-${kind}-2`), heldKey)).toMatchObject({ answer: { ok: false, code: 'claim_held' }, replayed: true });
    });

    it('a release is one statement with or without a key, replays, and a second release answers the first', async () => {
      const claim = await acquire(h);
      const release = (ops: Operations) =>
        ops.claims.release({ credential: h.credential, spaceId: SPACE, key: claim.key, token: claim.token as string, observation: { n: 1 } });
      const idempotency = { key: `rel-${kind}-1`, fingerprint: 'f' };
      let first!: ExecuteResult<Answer>;
      expect(await h.sent(async () => (first = await h.exec(release, { idempotency })))).toHaveLength(1);
      expect(first.answer).toMatchObject({ ok: true, value: { released: true, observation: { n: 1 }, claimId: claim.claimId } });
      expect(await h.exec(release, { idempotency })).toEqual({ answer: first.answer, replayed: true });
      expect(await h.exec(release)).toEqual({ answer: first.answer, replayed: false });
      const after = await h.exec((ops) => ops.claims.acquire({ credential: h.credential, spaceId: SPACE, key: claim.key, scopeId: SCOPE, holder: 'w', holderSession: 's' }));
      expect(after.answer).toMatchObject({ ok: true, value: { previousRelease: { claimId: claim.claimId, observation: { n: 1 } } } });
      const wrong = (ops: Operations) => ops.claims.release({ credential: h.credential, spaceId: SPACE, key: 'elsewhere', token: claim.token as string });
      expect(await h.exec(wrong)).toMatchObject({ answer: { ok: false, code: 'claim_not_held' } });
    });

    it('send, receive and ack are one statement each (with keys where they take one), and send and ack replay', async () => {
      const spool = `sp-${kind}`;
      await h.exec((ops) => ops.spools.createSpool({ credential: h.credential, name: spool }));
      await h.exec((ops) => ops.spools.putQueue({ credential: h.credential, spool, queue: 'q', leaseTimeoutSeconds: 30 }));
      const send = (ops: Operations) => ops.spools.send({ credential: h.credential, spool, queue: 'q', body: { n: 1 } });
      const sendKey = { idempotency: { key: `s-${kind}-1`, fingerprint: 'f' } };
      let sent!: ExecuteResult<Answer>;
      expect(await h.sent(async () => (sent = await h.exec(send, sendKey)))).toHaveLength(1);
      expect(await h.exec(send, sendKey)).toEqual({ answer: sent.answer, replayed: true });
      const receive = (ops: Operations) => ops.spools.receive({ credential: h.credential, spool, queue: 'q' });
      const receiveKey = { idempotency: { key: `rcv-${kind}-1`, fingerprint: 'f' } };
      let got!: ExecuteResult<Answer>;
      expect(await h.sent(async () => (got = await h.exec(receive, receiveKey)))).toHaveLength(1);
      let again!: ExecuteResult<Answer>;
      expect(await h.sent(async () => (again = await h.exec(receive, receiveKey)))).toHaveLength(1);
      expect(again).toEqual({ answer: got.answer, replayed: true });
      const lease = (got.answer as { value: { lease: string } }).value.lease;
      expect(lease).toMatch(/^sl_/);
      await expectNowhereInDatabase(lease);
      // An empty queue's answer under a key is kept too: its replay stays empty after a send.
      const emptyKey = { idempotency: { key: `rcv-${kind}-2`, fingerprint: 'f' } };
      expect(await h.exec(receive, emptyKey)).toEqual({ answer: { ok: true, value: null }, replayed: false });
      await h.exec(send);
      expect(await h.exec(receive, emptyKey)).toEqual({ answer: { ok: true, value: null }, replayed: true });
      const ackKey = { idempotency: { key: `ack-${kind}-1`, fingerprint: 'f' } };
      const ack = (ops: Operations) => ops.spools.ack({ credential: h.credential, spool, lease });
      expect(await h.sent(() => h.exec(ack, ackKey))).toHaveLength(1);
      expect(await h.exec(ack, ackKey)).toEqual({ answer: { ok: true, value: null }, replayed: true });
      expect(await h.exec(ack)).toMatchObject({ answer: { ok: false, code: 'stale_token' } });
    });

    it('an operation refused before any statement sends none (with a key: only the record)', async () => {
      const claim = await acquire(h);
      const bad = (ops: Operations) =>
        ops.claims.renew({ credential: h.credential, spaceId: SPACE, key: claim.key, token: claim.token as string, leaseSeconds: 1 });
      let answer: ExecuteResult<Answer> | undefined;
      expect(await h.sent(async () => (answer = await h.exec(bad)))).toEqual([]);
      expect(answer?.answer).toMatchObject({ ok: false, code: 'invalid_request' });
      const all = { idempotency: { key: `r-${kind}-8`, fingerprint: 'f' }, isStorable: () => true };
      expect(await h.sent(() => h.exec(bad, all))).toHaveLength(2);
      expect(await h.exec(bad, all)).toMatchObject({ answer: { code: 'invalid_request' }, replayed: true });
    });
  });
}

suite('pglite', async (onQuery) => {
  const driver = await createPgliteDriver({ onQuery });
  return { driver, store: await SqlStore.open(driver, { clock: 'manual', keys: KEYS, sweepIntervalMs: 0 }) };
});

let drop: (() => Promise<void>) | undefined;
let url = '';
suite('postgres', async (onQuery) => {
  const db = await createTestDatabase();
  drop = db.drop;
  url = db.url;
  const driver = createPgDriver({ url, poolSize: 4, onQuery });
  return { driver, store: await SqlStore.open(driver, { clock: 'manual', keys: KEYS, sweepIntervalMs: 0 }) };
});

describe('one round trip — two PostgreSQL processes', () => {
  let a: Harness;
  let b: Harness;
  beforeAll(async () => {
    a = await harness(await SqlStore.open(createPgDriver({ url, poolSize: 4 }), { keys: KEYS, sweepIntervalMs: 0 }), []);
    b = await harness(await SqlStore.open(createPgDriver({ url, poolSize: 4 }), { keys: KEYS, sweepIntervalMs: 0 }), []);
  });
  afterAll(async () => {
    await a?.store.close();
    await b?.store.close();
    await drop?.();
  });

  it('a renew under a key another process has in flight answers idempotency_in_flight, then replays', async () => {
    const claim = await acquire(a, 600);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const idempotency = { key: 'cross-renew', fingerprint: 'f' };
    const first = a.exec(renew(a, claim), { idempotency, beforeCommit: () => gate });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await expect(b.exec(renew(b, claim), { idempotency })).rejects.toMatchObject({ code: 'idempotency_in_flight' });
    release();
    const done = await first;
    expect(await b.exec(renew(b, claim), { idempotency })).toEqual({ answer: done.answer, replayed: true });
  });
});
