import { describe, expect, it } from 'vitest';
import { RUN_A, SPACE, T0, codeOf, login, setup } from './test-fixtures.js';

type Fixture = ReturnType<typeof setup>;

function acquire(f: Fixture, credential = f.admin, extra: { wait?: boolean } = {}) {
  return f.engine.claims.acquire({ credential, spaceId: SPACE, key: 'k', scopeId: RUN_A, holder: 'w', holderSession: 's', ...extra });
}

describe('EngineControls', () => {
  it('cancels a run in every account when no account is named', () => {
    const f = setup();
    acquire(f);
    acquire(f, f.other);
    expect(f.engine.controls.cancelScope({ spaceId: SPACE, scopeId: RUN_A })).toBe(2);
    expect(f.engine.controls.cancelScope({ spaceId: SPACE, scopeId: RUN_A, accountId: 'acct_demo' })).toBe(0);
    expect(codeOf(() => acquire(f, f.other))).toBe('scope_cancelled');
  });

  it('discards a message by spool and handle', () => {
    const f = setup();
    f.engine.spools.createSpool({ credential: f.admin, name: 'jobs' });
    f.engine.spools.putQueue({ credential: f.admin, spool: 'jobs', queue: 'q', leaseTimeoutSeconds: 30 });
    const message = f.engine.spools.send({ credential: f.admin, spool: 'jobs', queue: 'q', body: 1 });
    expect(f.engine.controls.discardMessage({ spool: 'jobs', handle: message.handle })).toBe(1);
    expect(f.engine.controls.discardMessage({ spool: 'jobs', handle: message.handle })).toBe(0);
  });

  it('takes a lease away now: the key passes on and the heartbeat reports the loss', () => {
    const f = setup();
    const holder = acquire(f);
    const waiter = acquire(f, f.admin, { wait: true });
    expect(f.engine.controls.loseLease(holder.claimId)).toBe(1);
    expect(f.engine.controls.loseLease(holder.claimId)).toBe(0);
    expect(f.engine.controls.loseLease('clm_unknown')).toBe(0);
    expect(f.engine.claims.get({ credential: f.admin, spaceId: SPACE, key: 'k' }).claimId).toBe(waiter.claimId);
    expect(f.engine.heartbeat({ credential: f.admin, ttl: 30 }).results[0]).toEqual({ claimId: holder.claimId, status: 'lost' });
  });

  it('suspends accounts, blocks and expires keys, sets rate limits', () => {
    const f = setup();
    const status = (key: string) => {
      const auth = f.engine.authenticate(`Bearer ${key}`);
      return auth.ok ? 'ok' : `${auth.status}:${auth.code}`;
    };
    f.engine.controls.suspendAccount('acct_demo');
    expect([status('lh_test_admin'), status('lh_test_reader'), status('lh_test_other')]).toEqual([
      '402:account_suspended',
      '402:account_suspended',
      'ok',
    ]);
    f.engine.controls.suspendAccount('acct_demo', false);
    f.engine.controls.blockKey('lh_test_admin');
    expect(status('lh_test_admin')).toBe('403:null');
    f.engine.controls.blockKey('lh_test_admin', false);
    f.engine.controls.setKeyExpired('lh_test_reader');
    expect(status('lh_test_reader')).toBe('401:expired_api_key');
    f.engine.controls.updateCredential('lh_test_reader', { expired: false });
    f.engine.controls.setRateLimit('lh_test_admin', 2);
    const admin = login(f.engine, 'lh_test_admin');
    expect([1, 2, 3].map(() => f.engine.checkRateLimit(admin))).toEqual([
      { allowed: true },
      { allowed: true },
      { allowed: false, retryAfterSeconds: 1 },
    ]);
    expect(codeOf(() => f.engine.controls.blockKey('lh_unknown'))).toBe('invalid_request');
  });
});

describe('Engine', () => {
  it('reports stats and expires on demand', () => {
    const f = setup();
    acquire(f);
    acquire(f, f.admin, { wait: true });
    f.engine.idempotency.begin(f.admin.credentialId, 'k', 'fp');
    expect(f.engine.stats()).toEqual({ held: 1, queued: 1, tombstones: 0, heapSize: 2, fence: 1, messages: 0, idempotencyRecords: 1 });
    f.clock.set(T0 + 30_000);
    expect(f.engine.processExpirations()).toBeGreaterThan(0);
    expect(f.engine.stats()).toMatchObject({ held: 0, queued: 0, tombstones: 2 });
  });
});
