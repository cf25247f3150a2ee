import { describe, expect, it } from 'vitest';
import type { Engine } from './engine.js';
import { TOMBSTONE_MS } from './lease-record.js';
import type { Claim } from './space-claim-views.js';
import { CANCELLED_SCOPE_MS } from './space-claims.js';
import { RUN_A, RUN_B, SPACE, T0, codeOf, setup } from './test-fixtures.js';

type Fixture = ReturnType<typeof setup>;

function acquire(f: Fixture, key: string, extra: Partial<Parameters<Engine['claims']['acquire']>[0]> = {}): Claim {
  return f.engine.claims.acquire({ credential: f.admin, spaceId: SPACE, key, scopeId: RUN_A, holder: 'worker-1', holderSession: 'sess-1', ...extra });
}

function release(f: Fixture, claim: Claim, observation?: unknown): void {
  f.engine.claims.release({ credential: f.admin, spaceId: SPACE, key: claim.key, token: claim.token as string, observation });
}

const spaceOf = (f: Fixture) => f.engine.claims.spaceOf(f.admin.accountId, SPACE, false);

describe('bounded memory of space claims', () => {
  it('keeps a free key\'s last release for 10 minutes, then forgets the key and its space', () => {
    const f = setup();
    release(f, acquire(f, 'k'), { rows: 1 });
    f.clock.advance(TOMBSTONE_MS - 1);
    f.engine.processExpirations();
    expect(spaceOf(f)?.keys.has('k')).toBe(true);
    f.clock.advance(1);
    f.engine.processExpirations();
    expect(spaceOf(f)).toBeUndefined();
    expect(acquire(f, 'k').previousRelease).toBeNull();
  });

  it('shows the last release to a holder that came within 10 minutes, however long it holds', () => {
    const f = setup();
    const first = acquire(f, 'k');
    release(f, first, { rows: 2 });
    f.clock.advance(TOMBSTONE_MS - 1_000);
    const second = acquire(f, 'k', { leaseSeconds: 600 });
    expect(second.previousRelease).toEqual({ claimId: first.claimId, holder: 'worker-1', releasedAt: T0, observation: { rows: 2 } });
    f.clock.advance(5 * 60_000); // past the first deadline while held: nothing forgotten
    expect(f.engine.claims.get({ credential: f.admin, spaceId: SPACE, key: 'k' }).previousRelease).toEqual(second.previousRelease);
    // Expired without a release: the old release is kept 10 minutes from when the key became free.
    f.clock.advance(5 * 60_000);
    f.engine.processExpirations();
    expect(spaceOf(f)?.keys.get('k')?.holder).toBeNull();
    f.clock.advance(TOMBSTONE_MS);
    f.engine.processExpirations();
    expect(spaceOf(f)).toBeUndefined();
  });

  it('forgets a key used once and never released as soon as it is free', () => {
    const f = setup();
    acquire(f, 'k');
    f.clock.advance(30_000);
    f.engine.processExpirations();
    expect(spaceOf(f)).toBeUndefined();
  });

  it('remembers a cancelled run for 24 hours (acquire is 409 scope_cancelled), then a new acquire in it succeeds', () => {
    const f = setup();
    acquire(f, 'k');
    acquire(f, 'other', { scopeId: RUN_B });
    expect(f.engine.claims.cancelScope({ credential: f.admin, spaceId: SPACE, scopeId: RUN_A }).claimsLost).toBe(1);
    f.clock.advance(CANCELLED_SCOPE_MS - 1);
    expect(codeOf(() => acquire(f, 'k'))).toBe('scope_cancelled');
    f.clock.advance(1);
    f.engine.processExpirations();
    expect(spaceOf(f)?.cancelled.has(RUN_A) ?? false).toBe(false);
    expect(acquire(f, 'k').status).toBe('held');
  });

  it('forgets a space with no keys, no live runs and no cancelled runs', () => {
    const f = setup();
    f.engine.claims.cancelScope({ credential: f.admin, spaceId: SPACE, scopeId: RUN_A });
    expect(spaceOf(f)).toBeDefined();
    f.clock.advance(CANCELLED_SCOPE_MS);
    f.engine.processExpirations();
    expect(spaceOf(f)).toBeUndefined();
  });

  it('a queued waiter leaving keeps the space while the key is held', () => {
    const f = setup();
    acquire(f, 'k', { leaseSeconds: 120 });
    const waiter = acquire(f, 'k', { wait: true, scopeId: RUN_B });
    release(f, waiter);
    expect(spaceOf(f)?.keys.get('k')?.holder).not.toBeNull();
    f.clock.advance(120_000);
    f.engine.processExpirations();
    expect(spaceOf(f)).toBeUndefined();
  });
});
