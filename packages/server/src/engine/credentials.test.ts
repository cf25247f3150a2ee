import { describe, expect, it } from 'vitest';
import { ManualClock } from './clock.js';
import { ALL_PERMISSIONS, KeyStore, canSeeSpace, requirePermission, type AuthResult } from './credentials.js';
import { EngineError } from './errors.js';
import { SPACE, T0 } from './test-fixtures.js';

function store(): { keys: KeyStore; clock: ManualClock } {
  const clock = new ManualClock(T0);
  const keys = new KeyStore(clock, [
    { apiKey: 'lh_test_admin', credentialId: 'cred_admin', accountId: 'acct_demo' },
    { apiKey: 'lh_test_reader', credentialId: 'cred_reader', accountId: 'acct_demo', permissions: ['coordination_read'] },
    { apiKey: 'lh_scoped', accountId: 'acct_demo', spaces: [SPACE.toUpperCase()] },
    { apiKey: 'lh_blocked', accountId: 'acct_demo', blocked: true },
    { apiKey: 'lh_expired', accountId: 'acct_demo', expired: true },
    { apiKey: 'lh_soon', accountId: 'acct_demo', expiresAt: T0 + 1000 },
    { apiKey: 'lh_suspended', accountId: 'acct_gone' },
  ]);
  keys.suspendAccount('acct_gone');
  return { keys, clock };
}

function refusal(result: AuthResult): [number, string | null] | 'ok' {
  return result.ok ? 'ok' : [result.status, result.code];
}

describe('KeyStore.authenticate', () => {
  const table: Array<[string | undefined | null, [number, string | null] | 'ok']> = [
    [undefined, [401, 'missing_api_key']],
    [null, [401, 'missing_api_key']],
    ['', [401, 'missing_api_key']],
    ['lh_test_admin', [401, 'invalid_api_key']],
    ['Basic abc', [401, 'invalid_api_key']],
    ['Bearer ', [401, 'invalid_api_key']],
    ['Bearer lh_nope', [401, 'invalid_api_key']],
    ['Bearer lh_test_admin', 'ok'],
    ['bearer lh_test_admin', 'ok'],
    ['Bearer lh_expired', [401, 'expired_api_key']],
    ['Bearer lh_blocked', [403, null]],
    ['Bearer lh_suspended', [402, 'account_suspended']],
    ['Bearer lh_soon', 'ok'],
  ];
  it.each(table)('%j → %j', (header, want) => {
    expect(refusal(store().keys.authenticate(header))).toEqual(want);
  });

  it('expires keys by expiresAt on the clock', () => {
    const { keys, clock } = store();
    clock.advance(1000);
    expect(refusal(keys.authenticate('Bearer lh_soon'))).toEqual([401, 'expired_api_key']);
  });

  it('answers the credential with account, permissions and spaces, never the key', () => {
    const result = store().keys.authenticate('Bearer lh_test_admin');
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.credential).toMatchObject({ credentialId: 'cred_admin', accountId: 'acct_demo', spaces: '*' });
    expect([...result.credential.permissions]).toEqual(ALL_PERMISSIONS);
    expect(JSON.stringify({ ...result.credential, permissions: [...result.credential.permissions] })).not.toContain('lh_test_admin');
  });

  it('applies updates, suspension and reinstatement', () => {
    const { keys } = store();
    keys.update('lh_test_admin', { blocked: true });
    expect(refusal(keys.authenticate('Bearer lh_test_admin'))).toEqual([403, null]);
    keys.update('lh_test_admin', { blocked: false, expired: true });
    expect(refusal(keys.authenticate('Bearer lh_test_admin'))).toEqual([401, 'expired_api_key']);
    keys.update('lh_test_admin', { expired: false, rateLimitPerSecond: 5 });
    const ok = keys.authenticate('Bearer lh_test_admin');
    expect(ok.ok && ok.credential.rateLimitPerSecond).toBe(5);
    keys.suspendAccount('acct_demo');
    expect(refusal(keys.authenticate('Bearer lh_test_admin'))).toEqual([402, 'account_suspended']);
    keys.suspendAccount('acct_demo', false);
    expect(refusal(keys.authenticate('Bearer lh_test_admin'))).toBe('ok');
    expect(() => keys.update('lh_unknown', { blocked: true })).toThrow(EngineError);
  });

  it('ships the demo keys by default', () => {
    const keys = new KeyStore(new ManualClock(T0));
    const admin = keys.authenticate('Bearer lh_test_admin');
    const reader = keys.authenticate('Bearer lh_test_reader');
    const other = keys.authenticate('Bearer lh_test_other');
    if (!admin.ok || !reader.ok || !other.ok) throw new Error('demo keys must authenticate');
    expect(admin.credential.accountId).toBe('acct_demo');
    expect(reader.credential.accountId).toBe('acct_demo');
    expect(other.credential.accountId).toBe('acct_other');
    expect([...reader.credential.permissions].sort()).toEqual(['coordination_read', 'spools:read', 'tasks:read']);
    expect(() => requirePermission(reader.credential, 'coordination_write')).toThrow(EngineError);
    expect(() => requirePermission(admin.credential, 'spools:write')).not.toThrow();
    expect(keys.accounts().sort()).toEqual(['acct_demo', 'acct_other']);
  });

  it('limits scoped keys to their spaces (case-insensitively)', () => {
    const result = store().keys.authenticate('Bearer lh_scoped');
    if (!result.ok) throw new Error('scoped key must authenticate');
    expect(canSeeSpace(result.credential, SPACE)).toBe(true);
    expect(canSeeSpace(result.credential, '00000000-0000-4000-8000-000000000000')).toBe(false);
  });
});

describe('KeyStore header cache', () => {
  it('answers a repeated header from the cache with its standing read afresh each time', () => {
    const { keys, clock } = store();
    const first = keys.authenticate('Bearer lh_soon');
    expect(first.ok).toBe(true);
    expect(keys.authenticate('Bearer lh_soon')).toBe(first); // the same frozen answer, no hashing
    clock.advance(1000);
    expect(refusal(keys.authenticate('Bearer lh_soon'))).toEqual([401, 'expired_api_key']);
    expect(refusal(keys.authenticate('Bearer lh_test_admin'))).toBe('ok');
    keys.suspendAccount('acct_demo');
    expect(refusal(keys.authenticate('Bearer lh_test_admin'))).toEqual([402, 'account_suspended']);
    keys.suspendAccount('acct_demo', false);
    expect(refusal(keys.authenticate('Bearer lh_test_admin'))).toBe('ok');
  });

  it('is invalidated by updates: blocking, expiring and a new rate limit show on the next request', () => {
    const { keys } = store();
    const before = keys.authenticate('Bearer lh_test_admin');
    expect(before.ok && before.credential.rateLimitPerSecond).toBe(null);
    keys.update('lh_test_admin', { rateLimitPerSecond: 7 });
    const after = keys.authenticate('Bearer lh_test_admin');
    expect(after.ok && after.credential.rateLimitPerSecond).toBe(7);
    // An answer handed out earlier is a snapshot: it keeps what was true then.
    expect(before.ok && before.credential.rateLimitPerSecond).toBe(null);
    keys.update('lh_test_admin', { blocked: true });
    expect(refusal(keys.authenticate('Bearer lh_test_admin'))).toEqual([403, null]);
    keys.update('lh_test_admin', { blocked: false, expired: true });
    expect(refusal(keys.authenticate('Bearer lh_test_admin'))).toEqual([401, 'expired_api_key']);
  });

  it('is invalidated when a key is added again with other settings', () => {
    const { keys } = store();
    expect(refusal(keys.authenticate('Bearer lh_test_admin'))).toBe('ok');
    keys.add({ apiKey: 'lh_test_admin', credentialId: 'cred_admin', accountId: 'acct_demo', blocked: true });
    expect(refusal(keys.authenticate('Bearer lh_test_admin'))).toEqual([403, null]);
  });

  it('never remembers a header that did not match a key, and stays bounded', () => {
    const { keys } = store();
    for (let i = 0; i < 3; i++) expect(refusal(keys.authenticate('Bearer lh_nope'))).toEqual([401, 'invalid_api_key']);
    expect(refusal(keys.authenticate('   '))).toEqual([401, 'missing_api_key']);
    // More distinct spellings of a valid header than the cache holds: every one still answers.
    for (let spaces = 1; spaces <= 300; spaces++) {
      expect(refusal(keys.authenticate(`Bearer${' '.repeat(spaces)}lh_test_admin`))).toBe('ok');
    }
    expect(refusal(keys.authenticate('Bearer  lh_test_admin'))).toBe('ok');
    expect(refusal(keys.authenticate('Bearer lh_test_admin_'))).toEqual([401, 'invalid_api_key']);
  });

  it('hands out frozen credentials', () => {
    const result = store().keys.authenticate('Bearer lh_test_admin');
    if (!result.ok) throw new Error('admin must authenticate');
    expect(Object.isFrozen(result.credential)).toBe(true);
  });
});
