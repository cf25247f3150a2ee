import { describe, expect, it } from 'vitest';
import type { Engine } from './engine.js';
import type { Claim } from './space-claim-views.js';
import { RUN_A, RUN_B, SPACE, T0, codeOf, setup } from './test-fixtures.js';

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

describe('expiry and waiters', () => {
  it('grants the next waiter at the instant the holder expired', () => {
    const f = setup();
    acquire(f, 'k');
    const waiter = acquire(f, 'k', { wait: true, leaseSeconds: 60 });
    f.clock.advance(31_000);
    expect(f.engine.claims.get({ credential: f.admin, spaceId: SPACE, key: 'k' })).toMatchObject({
      claimId: waiter.claimId,
      acquiredAt: T0 + 30_000,
      expiresAt: T0 + 90_000,
      fence: 2,
    });
  });

  it('skips waiters whose own ttl lapsed; they are reported lost', () => {
    const f = setup();
    acquire(f, 'k', { leaseSeconds: 60 });
    const lapsing = acquire(f, 'k', { wait: true, leaseSeconds: 5, holderSession: 'sess-lapse' });
    const patient = acquire(f, 'k', { wait: true, leaseSeconds: 120 });
    f.clock.advance(61_000);
    expect(f.engine.claims.get({ credential: f.admin, spaceId: SPACE, key: 'k' }).claimId).toBe(patient.claimId);
    expect(codeOf(() => f.engine.claims.renew({ credential: f.admin, spaceId: SPACE, key: 'k', token: tokenOf(lapsing) }))).toBe('lease_expired');
    expect(f.engine.heartbeat({ credential: f.admin, ttl: 30, holderSession: 'sess-lapse' }).results).toEqual([
      { claimId: lapsing.claimId, status: 'lost' },
    ]);
  });

  it('frees the key when the last holder expires and nobody waits', () => {
    const f = setup();
    acquire(f, 'k');
    f.clock.advance(30_000);
    expect(codeOf(() => f.engine.claims.get({ credential: f.admin, spaceId: SPACE, key: 'k' }))).toBe('claim_not_found');
    expect(acquire(f, 'k').fence).toBe(2);
    expect(f.engine.stats()).toMatchObject({ held: 1, tombstones: 1 });
  });
});

describe('SpaceClaims.cancelScope', () => {
  it('takes the run away: held and queued claims lost, keys pass to other runs', () => {
    const f = setup();
    acquire(f, 'k1');
    acquire(f, 'k2');
    acquire(f, 'k3', { scopeId: RUN_B });
    acquire(f, 'k3', { wait: true });
    const bWaiter = acquire(f, 'k1', { wait: true, scopeId: RUN_B });
    f.clock.advance(1_000);
    const cancel = () => f.engine.claims.cancelScope({ credential: f.admin, spaceId: SPACE, scopeId: RUN_A });
    expect(cancel()).toEqual({
      object: 'scope_cancellation',
      spaceId: SPACE,
      scopeId: RUN_A,
      cancelled: true,
      cancelledAt: T0 + 1_000,
      claimsLost: 3,
    });
    const get = (key: string) => f.engine.claims.get({ credential: f.admin, spaceId: SPACE, key });
    expect(get('k1')).toMatchObject({ claimId: bWaiter.claimId, acquiredAt: T0 + 1_000 });
    expect(codeOf(() => get('k2'))).toBe('claim_not_found');
    expect(get('k3').queueDepth).toBe(0);
    f.clock.advance(1_000);
    expect(cancel()).toMatchObject({ cancelledAt: T0 + 1_000, claimsLost: 0 });
    const results = f.engine.heartbeat({ credential: f.admin, ttl: 30 }).results;
    expect(results.filter((r) => r.status === 'lost')).toHaveLength(3);
    expect(f.engine.heartbeat({ credential: f.admin, ttl: 30 }).results.filter((r) => r.status === 'lost')).toHaveLength(0);
  });
});
