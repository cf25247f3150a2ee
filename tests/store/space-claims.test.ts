/**
 * Space claims through the operations interface, on memory, PGlite and PostgreSQL: every
 * operation, its error codes, FIFO hand-over, expiry via the manual clock, cancellation. Each
 * SQL transcript must equal the memory engine's.
 */
import { expect } from 'vitest';
import type { Claim } from '../../packages/server/src/engine/index.js';
import { SCOPE, SCOPE_B, SPACE, SPACE_B, describeStores, type World } from './support/world.js';

const acquire = (w: World, key: string, extra: Record<string, unknown> = {}) =>
  w.run((ops) => ops.claims.acquire({ credential: w.admin, spaceId: SPACE, key, scopeId: SCOPE, holder: 'w1', holderSession: 's1', ...extra }));

describeStores('space claims', {
  'acquire, read, list, renew and release one key': async (w) => {
    const held = await acquire(w, 'reports/2026-11', { leaseSeconds: 60 });
    expect(held.ok && held.value.status).toBe('held');
    const claim = (held as { value: Claim }).value;
    expect(claim.token).toMatch(/^lht_/);
    expect(claim.fence).toBe(1);
    const read = await w.ok((ops) => ops.claims.get({ credential: w.admin, spaceId: SPACE, key: 'reports/2026-11' }));
    expect(read).not.toHaveProperty('token');
    expect(read.claimId).toBe(claim.claimId);
    await w.advance(10_000);
    const renewed = await w.ok((ops) =>
      ops.claims.renew({ credential: w.admin, spaceId: SPACE, key: 'reports/2026-11', token: claim.token as string, leaseSeconds: 120 }),
    );
    expect(renewed.expiresAt).toBe(claim.expiresAt - 60_000 + 10_000 + 120_000);
    const released = await w.ok((ops) =>
      ops.claims.release({ credential: w.admin, spaceId: SPACE, key: 'reports/2026-11', token: claim.token as string, observation: { rows: 3 } }),
    );
    expect(released).toMatchObject({ object: 'claim_release', released: true, observation: { rows: 3 } });
    const again = await w.ok((ops) =>
      ops.claims.release({ credential: w.admin, spaceId: SPACE, key: 'reports/2026-11', token: claim.token as string }),
    );
    expect(again).toEqual(released);
    expect(await w.run((ops) => ops.claims.get({ credential: w.admin, spaceId: SPACE, key: 'reports/2026-11' }))).toMatchObject({
      ok: false,
      code: 'claim_not_found',
    });
    const next = await acquire(w, 'reports/2026-11');
    expect(next.ok && next.value.previousRelease).toMatchObject({ claimId: claim.claimId, holder: 'w1', observation: { rows: 3 } });
    expect(next.ok && next.value.fence).toBe(2);
  },

  'refusals: claim_held, validation, invisible spaces, wrong tokens': async (w) => {
    const first = await acquire(w, 'k');
    expect(await acquire(w, 'k')).toMatchObject({ ok: false, code: 'claim_held', param: 'key', status: 409 });
    expect(await acquire(w, '')).toMatchObject({ ok: false, code: 'invalid_request', param: 'key' });
    expect(await acquire(w, 'k', { scopeId: 'nope' })).toMatchObject({ ok: false, param: 'scopeId' });
    expect(await acquire(w, 'k', { leaseSeconds: 4 })).toMatchObject({ ok: false, param: 'leaseSeconds' });
    expect(await acquire(w, 'k', { holder: '' })).toMatchObject({ ok: false, param: 'holder' });
    expect(
      await w.run((ops) =>
        ops.claims.acquire({ credential: w.oneSpace, spaceId: SPACE_B, key: 'k', scopeId: SCOPE, holder: 'w', holderSession: 's' }),
      ),
    ).toMatchObject({ ok: false, code: 'space_not_found', status: 404 });
    const token = (first as { value: Claim }).value.token as string;
    const renew = (t: string, key = 'k') => w.run((ops) => ops.claims.renew({ credential: w.admin, spaceId: SPACE, key, token: t }));
    expect(await renew('')).toMatchObject({ ok: false, code: 'invalid_request', param: 'token' });
    expect(await renew('lht_nonsense')).toMatchObject({ ok: false, code: 'claim_not_held' });
    expect(await renew(`${token.slice(0, -2)}xx`)).toMatchObject({ ok: false, code: 'claim_not_held' });
    expect(await renew(token, 'other-key')).toMatchObject({ ok: false, code: 'claim_not_held' });
    expect(
      await w.run((ops) => ops.claims.renew({ credential: w.other, spaceId: SPACE, key: 'k', token })),
    ).toMatchObject({ ok: false, code: 'claim_not_held' });
    // Another account's space of the same id is another space: its key is free.
    expect(
      await w.run((ops) => ops.claims.get({ credential: w.other, spaceId: SPACE, key: 'k' })),
    ).toMatchObject({ ok: false, code: 'claim_not_found' });
    expect(await w.run((ops) => ops.claims.list({ credential: w.admin, spaceId: SPACE, limit: 0 }))).toMatchObject({ param: 'limit' });
    expect(await w.run((ops) => ops.claims.list({ credential: w.admin, spaceId: SPACE, cursor: '!!' }))).toMatchObject({ param: 'cursor' });
  },

  'waiters are granted first come, first served; a waiter may leave': async (w) => {
    const holder = (await acquire(w, 'q')) as { value: Claim };
    const a = (await acquire(w, 'q', { wait: true, holder: 'a', holderSession: 'sa' })) as { value: Claim };
    const b = (await acquire(w, 'q', { wait: true, holder: 'b', holderSession: 'sb' })) as { value: Claim };
    const c = (await acquire(w, 'q', { wait: true, holder: 'c', holderSession: 'sc' })) as { value: Claim };
    expect([a.value.position, b.value.position, c.value.position]).toEqual([1, 2, 3]);
    expect(c.value.queueDepth).toBe(3);
    expect(
      await w.run((ops) => ops.claims.renew({ credential: w.admin, spaceId: SPACE, key: 'q', token: a.value.token as string })),
    ).toMatchObject({ ok: false, code: 'claim_queued' });
    // b leaves the queue; the holder releases: a gets the key, then c.
    await w.ok((ops) => ops.claims.release({ credential: w.admin, spaceId: SPACE, key: 'q', token: b.value.token as string }));
    await w.ok((ops) => ops.claims.release({ credential: w.admin, spaceId: SPACE, key: 'q', token: holder.value.token as string }));
    const now = await w.ok((ops) => ops.claims.get({ credential: w.admin, spaceId: SPACE, key: 'q' }));
    expect(now).toMatchObject({ claimId: a.value.claimId, status: 'held', fence: 2, queueDepth: 1 });
    await w.ok((ops) => ops.claims.release({ credential: w.admin, spaceId: SPACE, key: 'q', token: a.value.token as string }));
    expect(await w.ok((ops) => ops.claims.get({ credential: w.admin, spaceId: SPACE, key: 'q' }))).toMatchObject({
      claimId: c.value.claimId,
      fence: 3,
    });
  },

  'expiry by the manual clock hands the key over at the expiry instant': async (w) => {
    const holder = (await acquire(w, 'e', { leaseSeconds: 30 })) as { value: Claim };
    const lapsing = (await acquire(w, 'e', { wait: true, holder: 'l', leaseSeconds: 10 })) as { value: Claim };
    const waiter = (await acquire(w, 'e', { wait: true, holder: 'x', leaseSeconds: 300 })) as { value: Claim };
    await w.advance(31_000);
    const now = await w.ok((ops) => ops.claims.get({ credential: w.admin, spaceId: SPACE, key: 'e' }));
    expect(now).toMatchObject({ claimId: waiter.value.claimId, status: 'held', fence: 2, acquiredAt: holder.value.expiresAt });
    expect(now.expiresAt).toBe(holder.value.expiresAt + 300_000);
    expect(
      await w.run((ops) => ops.claims.renew({ credential: w.admin, spaceId: SPACE, key: 'e', token: holder.value.token as string })),
    ).toMatchObject({ ok: false, code: 'lease_expired' });
    expect(
      await w.run((ops) => ops.claims.release({ credential: w.admin, spaceId: SPACE, key: 'e', token: lapsing.value.token as string })),
    ).toMatchObject({ ok: false, code: 'lease_expired' });
    // Tombstones are forgotten after 10 minutes: the old token then holds nothing at all.
    await w.advance(10 * 60_000);
    expect(
      await w.run((ops) => ops.claims.renew({ credential: w.admin, spaceId: SPACE, key: 'e', token: holder.value.token as string })),
    ).toMatchObject({ ok: false, code: 'claim_not_held' });
  },

  'list pages through held keys in order, by prefix': async (w) => {
    for (const key of ['b/2', 'a/1', 'b/1', 'b/3', 'c', 'b/\u{1F600}', 'b/\uFFFD']) await acquire(w, key);
    const first = await w.ok((ops) => ops.claims.list({ credential: w.admin, spaceId: SPACE, prefix: 'b/', limit: 2 }));
    expect(first.data.map((c) => c.key)).toEqual(['b/1', 'b/2']);
    const second = await w.ok((ops) =>
      ops.claims.list({ credential: w.admin, spaceId: SPACE, prefix: 'b/', limit: 2, cursor: first.nextCursor as string }),
    );
    const third = await w.ok((ops) =>
      ops.claims.list({ credential: w.admin, spaceId: SPACE, prefix: 'b/', limit: 2, cursor: second.nextCursor as string }),
    );
    // Code-point order: U+FFFD sorts before U+1F600 (UTF-16 order would put the emoji first).
    expect([...second.data, ...third.data].map((c) => c.key)).toEqual(['b/3', 'b/\uFFFD', 'b/\u{1F600}']);
    expect(third.nextCursor).toBeNull();
    const all = await w.ok((ops) => ops.claims.list({ credential: w.admin, spaceId: SPACE }));
    expect(all.data).toHaveLength(7);
    expect(all.data.every((c) => c.token === undefined)).toBe(true);
  },

  'cancelling a run: its claims are lost, release still answers, the run stays cancelled for 24 h': async (w) => {
    const mine = (await acquire(w, 'r1')) as { value: Claim };
    await acquire(w, 'r2', { scopeId: SCOPE_B, holder: 'other-run' });
    const waiting = (await acquire(w, 'r2', { wait: true })) as { value: Claim };
    const nextRun = (await acquire(w, 'r1', { wait: true, scopeId: SCOPE_B, holder: 'next' })) as { value: Claim };
    const cancelled = await w.ok((ops) => ops.claims.cancelScope({ credential: w.admin, spaceId: SPACE, scopeId: SCOPE }));
    expect(cancelled).toMatchObject({ object: 'scope_cancellation', cancelled: true, claimsLost: 2 });
    expect(
      await w.run((ops) => ops.claims.renew({ credential: w.admin, spaceId: SPACE, key: 'r1', token: mine.value.token as string })),
    ).toMatchObject({ ok: false, code: 'scope_cancelled' });
    expect(await w.ok((ops) => ops.claims.get({ credential: w.admin, spaceId: SPACE, key: 'r1' }))).toMatchObject({
      claimId: nextRun.value.claimId,
    });
    await w.ok((ops) => ops.claims.release({ credential: w.admin, spaceId: SPACE, key: 'r1', token: mine.value.token as string }));
    await w.ok((ops) => ops.claims.release({ credential: w.admin, spaceId: SPACE, key: 'r2', token: waiting.value.token as string }));
    expect(await acquire(w, 'r3')).toMatchObject({ ok: false, code: 'scope_cancelled' });
    const repeat = await w.ok((ops) => ops.claims.cancelScope({ credential: w.admin, spaceId: SPACE, scopeId: SCOPE }));
    expect(repeat).toMatchObject({ claimsLost: 0, cancelledAt: cancelled.cancelledAt });
    await w.advance(24 * 60 * 60_000);
    expect(await acquire(w, 'r3')).toMatchObject({ ok: true });
  },
});
