/**
 * The batch heartbeat, idempotency records and the test controls through the operations
 * interface, on every store; plus fences drawn per account (SQL stores: the memory engine's
 * per-account sequence arrives from another branch).
 */
import { expect } from 'vitest';
import type { Claim, ReceivedMessage } from '../../packages/server/src/engine/index.js';
import type { Operations } from '../../packages/server/src/store/index.js';
import { SCOPE, SPACE, describeStores, type World } from './support/world.js';

const acquire = (w: World, key: string, extra: Record<string, unknown> = {}) =>
  w.ok((ops) => ops.claims.acquire({ credential: w.admin, spaceId: SPACE, key, scopeId: SCOPE, holder: 'w', holderSession: 's1', ...extra }));

describeStores(
  'heartbeat, idempotency, controls',
  {
    'ttl absent or null renews each lease for its own term; a negative ttl clamps; what carries no duration and an oversized details refuse the batch; claimId "" is no filter': async (w) => {
      const long = await acquire(w, 'own-term', { leaseSeconds: 120 });
      const short = await acquire(w, 'own-short', { leaseSeconds: 10 });
      await w.advance(8_000);
      const absent = await w.ok((ops) => ops.heartbeat({ credential: w.admin }));
      const byId = new Map(absent.results.map((r) => [r.claimId, r]));
      // Each for its own term from now: 120 s and 10 s (the 120 s claim had 112 s left, so it moves 8 s on).
      expect(byId.get(long.claimId)).toMatchObject({ status: 'held', expiresAt: long.expiresAt + 8_000 });
      expect(byId.get(short.claimId)).toMatchObject({ status: 'held', expiresAt: short.expiresAt + 8_000 });
      const again = await w.ok((ops) => ops.heartbeat({ credential: w.admin, ttl: null, claimId: '' }));
      expect(again.results.map((r) => r.claimId).sort()).toEqual([long.claimId, short.claimId].sort());
      // A negative number is a duration of 0: clamped to 5 s, never moving a claim earlier.
      const negative = await w.ok((ops) => ops.heartbeat({ credential: w.admin, ttl: -30, claimId: short.claimId }));
      expect(negative.results).toEqual([expect.objectContaining({ claimId: short.claimId, status: 'held', expiresAt: short.expiresAt + 8_000 })]);
      for (const ttl of ['soon', true, { seconds: 30 }, [30]]) {
        const refused = await w.run((ops) => ops.heartbeat({ credential: w.admin, ttl }));
        expect(refused, JSON.stringify(ttl)).toMatchObject({ code: 'invalid_ttl', param: 'ttl' });
      }
      await w.advance(1_000);
      const big = await w.run((ops) => ops.heartbeat({ credential: w.admin, ttl: 600, details: { pad: 'x'.repeat(17 * 1024) } }));
      expect(big).toMatchObject({ code: 'invalid_request', param: 'details' });
      const read = await w.ok((ops) => ops.claims.get({ credential: w.admin, spaceId: SPACE, key: 'own-term' }));
      expect(read.expiresAt, 'the refused heartbeat renewed nothing').toBe(long.expiresAt + 8_000);
    },

    'one heartbeat renews every kind, reports each loss once, filters by session and claim': async (w) => {
      const held = await acquire(w, 'h', { leaseSeconds: 30 });
      const other = await acquire(w, 'o', { holderSession: 's2' });
      const waiting = await acquire(w, 'h', { wait: true, holderSession: 's1' });
      const { task, etag } = await w.ok((ops) => ops.tasks.create({ credential: w.admin, title: 't' }));
      await w.ok((ops) => ops.tasks.claim({ credential: w.admin, taskId: task.id, ifMatch: etag }));
      await w.ok((ops) => ops.spools.createSpool({ credential: w.admin, name: 'sp' }));
      await w.ok((ops) => ops.spools.putQueue({ credential: w.admin, spool: 'sp', queue: 'q', leaseTimeoutSeconds: 40 }));
      await w.ok((ops) => ops.spools.send({ credential: w.admin, spool: 'sp', queue: 'q', body: 1 }));
      const message = (await w.ok((ops) => ops.spools.receive({ credential: w.admin, spool: 'sp', queue: 'q' }))) as ReceivedMessage;
      await w.advance(5_000);
      const all = await w.ok((ops) => ops.heartbeat({ credential: w.admin, ttl: '1m', details: { step: 2 } }));
      expect(all.results.map((r) => r.status)).toEqual(['held', 'held', 'queued', 'held', 'held']);
      expect(all.results[0]).toMatchObject({ claimId: held.claimId, queueDepth: 1 });
      expect(all.results[2]).toMatchObject({ claimId: waiting.claimId, position: 1, queueDepth: 1 });
      expect(await w.ok((ops) => ops.claims.get({ credential: w.admin, spaceId: SPACE, key: 'h' }))).toMatchObject({ details: { step: 2 } });
      expect(all.results[4]).toMatchObject({ claimId: message.message.claimId, expiresAt: (message.expiresAt as number) + 5_000 });
      const s2 = await w.ok((ops) => ops.heartbeat({ credential: w.admin, ttl: 60, holderSession: 's2' }));
      expect(s2.results.map((r) => r.claimId)).toEqual([other.claimId]);
      const one = await w.ok((ops) => ops.heartbeat({ credential: w.admin, ttl: 60, claimId: held.claimId }));
      expect(one.results).toHaveLength(1);
      expect(await w.run((ops) => ops.heartbeat({ credential: w.admin, ttl: 30, claimId: 'clm_nothing' }))).toMatchObject({
        code: 'claim_not_found',
      });
      expect(await w.run((ops) => ops.heartbeat({ credential: w.other, ttl: 30, claimId: held.claimId }))).toMatchObject({
        code: 'claim_not_found',
      });
      expect(await w.run((ops) => ops.heartbeat({ credential: w.admin, ttl: 'soon' }))).toMatchObject({ code: 'invalid_ttl', param: 'ttl' });
      expect(await w.run((ops) => ops.heartbeat({ credential: w.admin, ttl: 30, details: [1] }))).toMatchObject({ param: 'details' });
      expect(
        await w.run((ops) => ops.heartbeat({ credential: w.admin, ttl: 30, details: { pad: 'x'.repeat(17 * 1024) } })),
      ).toMatchObject({ param: 'details' });
      // Everything lapses but the task claim; the losses come back once, then never again.
      await w.advance(61_000);
      const after = await w.ok((ops) => ops.heartbeat({ credential: w.admin, ttl: 30 }));
      expect(after.results.map((r) => r.status)).toEqual(['lost', 'lost', 'lost', 'held', 'lost']);
      const next = await w.ok((ops) => ops.heartbeat({ credential: w.admin, ttl: 30 }));
      expect(next.results.map((r) => r.status)).toEqual(['held']);
      expect(await w.ok((ops) => ops.heartbeat({ credential: w.admin, ttl: 30, claimId: held.claimId }))).toMatchObject({
        results: [{ claimId: held.claimId, status: 'lost' }],
      });
      expect(await w.ok((ops) => ops.heartbeat({ credential: w.reader, ttl: 30 }))).toEqual({ object: 'list', results: [] });
    },

    'idempotent replay, reuse with another request, non-storable answers run again, in flight': async (w) => {
      const idempotency = { key: 'acquire-1', fingerprint: 'POST /v1/spaces/x/claims {"key":"i"}' };
      const acquireI = (ops: Operations) => ops.claims.acquire({ credential: w.admin, spaceId: SPACE, key: 'i', scopeId: SCOPE, holder: 'w', holderSession: 's' });
      const first = await w.run(acquireI, { idempotency });
      // The same request again (a SQL store's record keeps the acquire's row and its sealed token,
      // which the operation's one statement answers): the first answer, not a second grant
      // (which would be refused, key `i` being held).
      const replay = await w.run(acquireI, { idempotency });
      expect(replay).toEqual(first);

      expect((replay as { value: Claim }).value.token).toMatch(/^lht_/);
      await expect(
        w.run((ops) => ops.tasks.create({ credential: w.admin, title: 'x' }), { idempotency: { ...idempotency, fingerprint: 'other' } }),
      ).rejects.toMatchObject({ code: 'idempotency_key_reused' });
      const refused = { key: 'held-1', fingerprint: 'f' };
      const conflict = await w.run((ops) => ops.claims.acquire({ credential: w.admin, spaceId: SPACE, key: 'i', scopeId: SCOPE, holder: 'w', holderSession: 's' }), { idempotency: refused });
      expect(conflict).toMatchObject({ code: 'claim_held' });
      await w.ok((ops) =>
        ops.claims.release({ credential: w.admin, spaceId: SPACE, key: 'i', token: (first as { value: Claim }).value.token as string }),
      );
      expect(
        await w.run((ops) => ops.claims.acquire({ credential: w.admin, spaceId: SPACE, key: 'i', scopeId: SCOPE, holder: 'w', holderSession: 's' }), { idempotency: refused }),
      ).toMatchObject({ ok: true });
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const slow = w.run((ops) => ops.tasks.create({ credential: w.admin, title: 'slow' }), {
        idempotency: { key: 'slow', fingerprint: 'f' },
        beforeCommit: () => held,
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      await expect(w.run((ops) => ops.tasks.create({ credential: w.admin, title: 'slow' }), { idempotency: { key: 'slow', fingerprint: 'f' } })).rejects.toMatchObject({
        code: 'idempotency_in_flight',
      });
      release();
      const done = await slow;
      expect(await w.run(() => Promise.reject(new Error('replayed')), { idempotency: { key: 'slow', fingerprint: 'f' } })).toEqual(done);
      await expect(
        w.run(() => Promise.reject(new Error('x')), { idempotency: { key: 'slow', fingerprint: 'g' } }),
      ).rejects.toMatchObject({ code: 'idempotency_key_reused' });
      expect(await w.store.stats()).toMatchObject({ idempotencyRecords: expect.any(Number) });
    },

    'controls: lose a lease, suspend, block, expire, rate limit, primary change, discard': async (w) => {
      const claim = await acquire(w, 'c');
      expect(await w.store.controls.loseLease(claim.claimId)).toBe(1);
      expect(await w.store.controls.loseLease(claim.claimId)).toBe(0);
      expect(await w.ok((ops) => ops.heartbeat({ credential: w.admin, ttl: 30 }))).toMatchObject({ results: [{ status: 'lost' }] });
      await w.ok((ops) => ops.spools.createSpool({ credential: w.admin, name: 'sp' }));
      await w.ok((ops) => ops.spools.putQueue({ credential: w.admin, spool: 'sp', queue: 'q', leaseTimeoutSeconds: 40 }));
      const sent = await w.ok((ops) => ops.spools.send({ credential: w.admin, spool: 'sp', queue: 'q', body: 1 }));
      await w.ok((ops) => ops.spools.send({ credential: w.admin, spool: 'sp', queue: 'q', body: 2 }));
      const got = (await w.ok((ops) => ops.spools.receive({ credential: w.admin, spool: 'sp', queue: 'q' }))) as ReceivedMessage;
      w.note(await w.store.controls.primaryChange());
      expect(await w.run((ops) => ops.spools.ack({ credential: w.admin, spool: 'sp', lease: got.lease }))).toMatchObject({ code: 'stale_token' });
      w.note(await w.store.controls.discardMessage({ spool: 'sp', handle: sent.handle }));
      expect(await w.ok((ops) => ops.spools.getQueue({ credential: w.admin, spool: 'sp', queue: 'q' }))).toMatchObject({ depth: 1 });
      w.note(await w.store.controls.cancelScope({ spaceId: SPACE, scopeId: SCOPE, accountId: w.accountId }));
      expect(await w.store.authenticate(`Bearer ${w.apiKeys.admin}`)).toMatchObject({ ok: true });
      await w.store.controls.suspendAccount(w.accountId, true);
      expect(await w.store.authenticate(`Bearer ${w.apiKeys.admin}`)).toMatchObject({ ok: false, status: 402, code: 'account_suspended' });
      await w.store.controls.suspendAccount(w.accountId, false);
      await w.store.controls.updateCredential(w.apiKeys.admin, { blocked: true });
      expect(await w.store.authenticate(`Bearer ${w.apiKeys.admin}`)).toMatchObject({ ok: false, status: 403, code: null });
      await w.store.controls.updateCredential(w.apiKeys.admin, { blocked: false, expired: true });
      expect(await w.store.authenticate(`Bearer ${w.apiKeys.admin}`)).toMatchObject({ ok: false, status: 401, code: 'expired_api_key' });
      await w.store.controls.updateCredential(w.apiKeys.admin, { expired: false, rateLimitPerSecond: 2 });
      const limited = await w.store.authenticate(`Bearer ${w.apiKeys.admin}`);
      if (!limited.ok) throw new Error('refused');
      const decisions = [];
      for (let i = 0; i < 3; i++) decisions.push(await w.store.checkRateLimit(limited.credential));
      expect(decisions).toEqual([{ allowed: true }, { allowed: true }, { allowed: false, retryAfterSeconds: 1 }]);
      await w.advance(1_000);
      expect(await w.store.checkRateLimit(limited.credential)).toEqual({ allowed: true });
      await expect(Promise.resolve().then(() => w.store.controls.updateCredential('lh_unknown', { blocked: true }))).rejects.toMatchObject({
        code: 'invalid_request',
      });
      expect(await w.store.authenticate('Bearer lh_unknown')).toMatchObject({ ok: false, status: 401, code: 'invalid_api_key' });
      expect(await w.store.authenticate(undefined)).toMatchObject({ ok: false, code: 'missing_api_key' });
      expect(await w.store.authenticate('Basic x')).toMatchObject({ ok: false, code: 'invalid_api_key' });
    },

    'fences come from a sequence per account': async (w) => {
      const mine = await acquire(w, 'f');
      const theirs = await w.ok((ops) =>
        ops.claims.acquire({ credential: w.other, spaceId: SPACE, key: 'f', scopeId: SCOPE, holder: 'w', holderSession: 's' }),
      );
      expect([mine.fence, theirs.fence]).toEqual([1, 1]);
      await w.ok((ops) => ops.claims.release({ credential: w.admin, spaceId: SPACE, key: 'f', token: mine.token as string }));
      const next = await acquire(w, 'f', { leaseSeconds: 120 });
      expect(next.fence).toBe(2);
      // The batch heartbeat never moves a held claim's expiry earlier.
      const beat = await w.ok((ops) => ops.heartbeat({ credential: w.admin, ttl: 30, claimId: next.claimId }));
      expect(beat.results[0]).toMatchObject({ status: 'held', expiresAt: next.expiresAt });
    },
  },
  { sqlOnly: ['fences come from a sequence per account'] },
);
