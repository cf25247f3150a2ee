import { describe, expect, it } from 'vitest';
import type { Credential } from './credentials.js';
import type { Engine } from './engine.js';
import type { Claim } from './space-claim-views.js';
import { RUN_A, RUN_B, SPACE, T0, codeOf, errorOf, setup } from './test-fixtures.js';

type Fixture = ReturnType<typeof setup>;

function acquire(f: Fixture, key: string, extra: Partial<Parameters<Engine['claims']['acquire']>[0]> = {}): Claim {
  return f.engine.claims.acquire({
    credential: f.admin,
    spaceId: SPACE,
    key,
    scopeId: RUN_A,
    holder: 'worker-1',
    holderSession: 'sess-1',
    ...extra,
  });
}

function tokenOf(claim: Claim): string {
  if (claim.token === undefined) throw new Error('acquire must return a token');
  return claim.token;
}

describe('SpaceClaims.acquire', () => {
  it('grants a free key with a token and a fence', () => {
    const f = setup();
    const claim = acquire(f, 'reports/2026-11');
    expect(claim).toMatchObject({
      object: 'claim',
      spaceId: SPACE,
      key: 'reports/2026-11',
      scopeId: RUN_A,
      holder: 'worker-1',
      holderSession: 'sess-1',
      status: 'held',
      fence: 1,
      leaseSeconds: 30,
      expiresAt: T0 + 30_000,
      acquiredAt: T0,
      queueDepth: 0,
      details: null,
      previousRelease: null,
    });
    expect(claim.claimId).toMatch(/^clm_[A-Za-z0-9]+$/);
    expect(claim.token).toMatch(/^lht_[A-Za-z0-9_-]{16,256}$/);
    expect(claim.position).toBeUndefined();
  });

  it('refuses a held key with claim_held and changes nothing', () => {
    const f = setup();
    acquire(f, 'k');
    const before = f.engine.stats();
    expect(codeOf(() => acquire(f, 'k', { holder: 'worker-2' }))).toBe('claim_held');
    expect(f.engine.stats()).toEqual(before);
  });

  it('queues waiters first-come first-served when asked to wait', () => {
    const f = setup();
    acquire(f, 'k');
    const w1 = acquire(f, 'k', { wait: true, holder: 'w1', leaseSeconds: 60 });
    const w2 = acquire(f, 'k', { wait: true, holder: 'w2' });
    expect(w1).toMatchObject({ status: 'queued', position: 1, queueDepth: 1, fence: null, acquiredAt: null, expiresAt: T0 + 60_000 });
    expect(w2).toMatchObject({ status: 'queued', position: 2, queueDepth: 2 });
    expect(w1.token).toMatch(/^lht_/);
    expect(f.engine.claims.get({ credential: f.admin, spaceId: SPACE, key: 'k' }).queueDepth).toBe(2);
  });

  it('refuses a cancelled run', () => {
    const f = setup();
    f.engine.claims.cancelScope({ credential: f.admin, spaceId: SPACE, scopeId: RUN_A });
    expect(codeOf(() => acquire(f, 'k'))).toBe('scope_cancelled');
    expect(acquire(f, 'k', { scopeId: RUN_B }).status).toBe('held');
  });

  const invalid: Array<[string, Record<string, unknown>, string]> = [
    ['empty key', { key: '' }, 'key'],
    ['long key', { key: 'x'.repeat(513) }, 'key'],
    ['short lease', { leaseSeconds: 4 }, 'leaseSeconds'],
    ['long lease', { leaseSeconds: 601 }, 'leaseSeconds'],
    ['fractional lease', { leaseSeconds: 1.5 }, 'leaseSeconds'],
    ['bad scope', { scopeId: 'run-1' }, 'scopeId'],
    ['bad space', { spaceId: 'space-1' }, 'spaceId'],
    ['empty holder', { holder: '' }, 'holder'],
  ];
  it.each(invalid)('validates: %s', (_name, extra, param) => {
    const f = setup();
    const error = errorOf(() => acquire(f, 'k', extra));
    expect([error.code, error.param]).toEqual(['invalid_request', param]);
  });

  it('accepts a 512-character key and keys with slashes', () => {
    const f = setup();
    expect(acquire(f, 'x'.repeat(512)).status).toBe('held');
    expect(acquire(f, 'a/b/c').key).toBe('a/b/c');
  });

  it('keeps accounts apart and hides spaces a key may not see', () => {
    const f = setup();
    acquire(f, 'k');
    expect(acquire(f, 'k', { credential: f.other }).status).toBe('held');
    expect(codeOf(() => f.engine.claims.get({ credential: f.other, spaceId: SPACE, key: 'nope' }))).toBe('claim_not_found');
    const scoped: Credential = { ...f.admin, spaces: new Set(['00000000-0000-4000-8000-000000000001']) };
    expect(codeOf(() => acquire(f, 'k2', { credential: scoped }))).toBe('space_not_found');
  });

  it('treats space ids case-insensitively', () => {
    const f = setup();
    acquire(f, 'k');
    expect(codeOf(() => acquire(f, 'k', { spaceId: SPACE.toUpperCase() }))).toBe('claim_held');
  });
});

describe('SpaceClaims.get and list', () => {
  it('reads the holder without its token, 404 when free', () => {
    const f = setup();
    const claim = acquire(f, 'k');
    const read = f.engine.claims.get({ credential: f.reader, spaceId: SPACE, key: 'k' });
    expect(read.claimId).toBe(claim.claimId);
    expect(read.token).toBeUndefined();
    expect(codeOf(() => f.engine.claims.get({ credential: f.admin, spaceId: SPACE, key: 'free' }))).toBe('claim_not_found');
  });

  it('lists held claims in key order with prefix, limit and cursor', () => {
    const f = setup();
    for (const key of ['b/2', 'a/1', 'b/1', 'c', 'b/3']) acquire(f, key);
    acquire(f, 'b/1', { wait: true });
    const list = (extra: { prefix?: string; limit?: number; cursor?: string }) =>
      f.engine.claims.list({ credential: f.admin, spaceId: SPACE, ...extra });
    expect(list({}).data.map((c) => c.key)).toEqual(['a/1', 'b/1', 'b/2', 'b/3', 'c']);
    const page1 = list({ prefix: 'b/', limit: 2 });
    expect(page1.data.map((c) => [c.key, c.queueDepth])).toEqual([['b/1', 1], ['b/2', 0]]);
    expect(page1.nextCursor).not.toBeNull();
    const page2 = list({ prefix: 'b/', limit: 2, cursor: page1.nextCursor as string });
    expect(page2.data.map((c) => c.key)).toEqual(['b/3']);
    expect(page2.nextCursor).toBeNull();
    expect(list({ limit: 5 }).nextCursor).toBeNull();
    expect(list({ prefix: 'zzz' }).data).toEqual([]);
    expect(page1.data.every((c) => c.token === undefined)).toBe(true);
    expect(codeOf(() => list({ cursor: '%%%' }))).toBe('invalid_request');
    expect(codeOf(() => list({ limit: 0 }))).toBe('invalid_request');
  });

  it('lists nothing in an untouched space', () => {
    const f = setup();
    expect(f.engine.claims.list({ credential: f.admin, spaceId: SPACE })).toEqual({ object: 'list', data: [], nextCursor: null });
  });
});

describe('SpaceClaims.renew', () => {
  it('extends from now and reports the new expiry', () => {
    const f = setup();
    const token = tokenOf(acquire(f, 'k'));
    f.clock.advance(10_000);
    const renewed = f.engine.claims.renew({ credential: f.admin, spaceId: SPACE, key: 'k', token, leaseSeconds: 60 });
    expect(renewed).toMatchObject({ expiresAt: T0 + 70_000, leaseSeconds: 60, status: 'held', fence: 1 });
    expect(renewed.token).toBeUndefined();
    f.clock.advance(59_000);
    expect(f.engine.claims.get({ credential: f.admin, spaceId: SPACE, key: 'k' }).claimId).toBe(renewed.claimId);
  });

  it('answers why the token does not hold the key', () => {
    const f = setup();
    const held = tokenOf(acquire(f, 'k'));
    const other = tokenOf(acquire(f, 'other'));
    const queued = tokenOf(acquire(f, 'k', { wait: true, scopeId: RUN_B, leaseSeconds: 600 }));
    const renew = (token: string, key = 'k') => codeOf(() => f.engine.claims.renew({ credential: f.admin, spaceId: SPACE, key, token }));
    expect(renew(held)).toBe('no error');
    expect(renew(other)).toBe('claim_not_held');
    expect(renew(`${held}x`)).toBe('claim_not_held');
    expect(renew('lht_nonsense')).toBe('claim_not_held');
    expect(renew(queued)).toBe('claim_queued');
    expect(codeOf(() => f.engine.claims.renew({ credential: f.other, spaceId: SPACE, key: 'k', token: held }))).toBe('claim_not_held');
    f.clock.advance(30_000);
    expect(renew(held)).toBe('lease_expired');
    f.engine.claims.cancelScope({ credential: f.admin, spaceId: SPACE, scopeId: RUN_B });
    expect(renew(queued)).toBe('scope_cancelled');
  });

  it('never puts a token in an error message', () => {
    const f = setup();
    const token = tokenOf(acquire(f, 'k'));
    f.clock.advance(31_000);
    const error = errorOf(() => f.engine.claims.renew({ credential: f.admin, spaceId: SPACE, key: 'k', token }));
    expect(error.message).not.toContain(token);
  });
});

describe('SpaceClaims.release', () => {
  it('releases, passes the key to the first waiter and shows the previous release', () => {
    const f = setup();
    const first = acquire(f, 'k');
    const waiter = acquire(f, 'k', { wait: true, holder: 'w2', scopeId: RUN_B, leaseSeconds: 45 });
    f.clock.advance(5_000);
    const released = f.engine.claims.release({ credential: f.admin, spaceId: SPACE, key: 'k', token: tokenOf(first), observation: { rows: 5 } });
    expect(released).toEqual({
      object: 'claim_release',
      claimId: first.claimId,
      spaceId: SPACE,
      key: 'k',
      scopeId: RUN_A,
      holder: 'worker-1',
      released: true,
      releasedAt: T0 + 5_000,
      observation: { rows: 5 },
    });
    const now = f.engine.claims.get({ credential: f.admin, spaceId: SPACE, key: 'k' });
    expect(now).toMatchObject({ claimId: waiter.claimId, status: 'held', fence: 2, acquiredAt: T0 + 5_000, expiresAt: T0 + 50_000 });
    expect(now.previousRelease).toEqual({ claimId: first.claimId, holder: 'worker-1', releasedAt: T0 + 5_000, observation: { rows: 5 } });
  });

  it('repeats answer the same row for 10 minutes', () => {
    const f = setup();
    const token = tokenOf(acquire(f, 'k'));
    const release = () => f.engine.claims.release({ credential: f.admin, spaceId: SPACE, key: 'k', token });
    const row = release();
    f.clock.advance(60_000);
    acquire(f, 'k', { holder: 'next' });
    expect(release()).toEqual(row);
    f.clock.advance(10 * 60_000);
    expect(codeOf(release)).toBe('claim_not_held');
  });

  it('lets a waiter leave the queue', () => {
    const f = setup();
    acquire(f, 'k');
    const w1 = acquire(f, 'k', { wait: true });
    const w2 = acquire(f, 'k', { wait: true });
    f.engine.claims.release({ credential: f.admin, spaceId: SPACE, key: 'k', token: tokenOf(w1) });
    const results = f.engine.heartbeat({ credential: f.admin, ttl: 30, claimId: w2.claimId }).results;
    expect(results).toEqual([{ claimId: w2.claimId, status: 'queued', expiresAt: T0 + 30_000, position: 1, queueDepth: 1 }]);
  });

  it('is safe cleanup after cancellation, but an expired lease is lease_expired', () => {
    const f = setup();
    const cancelled = tokenOf(acquire(f, 'a'));
    const expired = tokenOf(acquire(f, 'b', { scopeId: RUN_B }));
    f.engine.claims.cancelScope({ credential: f.admin, spaceId: SPACE, scopeId: RUN_A });
    const row = f.engine.claims.release({ credential: f.admin, spaceId: SPACE, key: 'a', token: cancelled });
    expect(row.released).toBe(true);
    expect(f.engine.claims.release({ credential: f.admin, spaceId: SPACE, key: 'a', token: cancelled })).toEqual(row);
    f.clock.advance(30_000);
    expect(codeOf(() => f.engine.claims.release({ credential: f.admin, spaceId: SPACE, key: 'b', token: expired }))).toBe('lease_expired');
    expect(codeOf(() => f.engine.claims.release({ credential: f.admin, spaceId: SPACE, key: 'b', token: 'lht_x_y' }))).toBe('claim_not_held');
  });
});
