/**
 * The SQL store's credential cache: a key's standing answers authentication without a
 * statement for at most `credentialCacheMs`. A change made through this process's controls acts
 * at once; one made by another process (another store on the same database) acts within the
 * bound — never later. The cache clock is injected, so the bound is crossed without waiting.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeyConfig } from '../../packages/server/src/engine/index.js';
import { SqlStore, createPgDriver } from '../../packages/server/src/store/index.js';
import { createTestDatabase } from '../support/postgres-database.js';

const START = Date.UTC(2026, 0, 1);
const KEYS: KeyConfig[] = [
  { apiKey: 'lh_cc_block', credentialId: 'cred_cc_block', accountId: 'acct_cc' },
  { apiKey: 'lh_cc_expire', credentialId: 'cred_cc_expire', accountId: 'acct_cc' },
  { apiKey: 'lh_cc_limit', credentialId: 'cred_cc_limit', accountId: 'acct_cc' },
  { apiKey: 'lh_cc_suspend', credentialId: 'cred_cc_suspend', accountId: 'acct_cc_suspend' },
  { apiKey: 'lh_cc_dated', credentialId: 'cred_cc_dated', accountId: 'acct_cc', expiresAt: START + 60_000 },
];
const BOUND = 1000;

let drop: () => Promise<void>;
let a: SqlStore;
let b: SqlStore;
let statementsOfB = 0;
/** B's cache clock (ms), moved by the tests. */
let clockOfB = 0;

const auth = (store: SqlStore, key: string) => Promise.resolve(store.authenticate(`Bearer ${key}`));
const code = async (store: SqlStore, key: string) => {
  const result = await auth(store, key);
  return result.ok ? 'ok' : `${result.status} ${result.code}`;
};

beforeAll(async () => {
  const db = await createTestDatabase();
  drop = db.drop;
  // Two stores on one database: two server processes, each with its pool and its cache.
  a = await SqlStore.open(createPgDriver({ url: db.url, poolSize: 2 }), { clock: 'manual', startTime: START, keys: KEYS, sweepIntervalMs: 0 });
  b = await SqlStore.open(createPgDriver({ url: db.url, poolSize: 2, onQuery: () => statementsOfB++ }), {
    clock: 'manual',
    keys: KEYS,
    sweepIntervalMs: 0,
    credentialCacheMs: BOUND,
    cacheClock: () => clockOfB,
  });
}, 60_000);

afterAll(async () => {
  await a?.close();
  await b?.close();
  await drop?.();
});

/** B authenticated `key` a moment ago; then `change` happens in A. */
async function changedElsewhere(key: string, change: () => unknown): Promise<void> {
  expect(await code(b, key)).toBe('ok');
  clockOfB += 10;
  await change();
}

describe('credential cache', () => {
  it('a cached key costs no statement, and answers synchronously', async () => {
    await auth(b, 'lh_cc_block');
    const before = statementsOfB;
    const result = b.authenticate('Bearer lh_cc_block');
    expect(result).not.toBeInstanceOf(Promise);
    expect(result).toMatchObject({ ok: true, credential: { credentialId: 'cred_cc_block' } });
    expect(statementsOfB).toBe(before);
    clockOfB += BOUND;
    await auth(b, 'lh_cc_block');
    expect(statementsOfB).toBe(before + 1);
  });

  it('a block made by another process acts within the bound; in the process that made it, at once', async () => {
    await changedElsewhere('lh_cc_block', () => a.controls.updateCredential('lh_cc_block', { blocked: true }));
    expect(await code(a, 'lh_cc_block')).toBe('403 null');
    expect(await code(b, 'lh_cc_block')).toBe('ok'); // stale, inside the bound
    clockOfB += BOUND - 10;
    expect(await code(b, 'lh_cc_block')).toBe('403 null');
    await b.controls.updateCredential('lh_cc_block', { blocked: false });
    expect(await code(b, 'lh_cc_block')).toBe('ok');
  });

  it('a suspension and an expiry set elsewhere act within the bound', async () => {
    await changedElsewhere('lh_cc_suspend', () => a.controls.suspendAccount('acct_cc_suspend', true));
    await changedElsewhere('lh_cc_expire', () => a.controls.updateCredential('lh_cc_expire', { expired: true }));
    expect(await code(a, 'lh_cc_suspend')).toBe('402 account_suspended');
    clockOfB += BOUND;
    expect(await code(b, 'lh_cc_suspend')).toBe('402 account_suspended');
    expect(await code(b, 'lh_cc_expire')).toBe('401 expired_api_key');
  });

  it('a rate limit set elsewhere reaches the credential within the bound', async () => {
    await changedElsewhere('lh_cc_limit', () => a.controls.updateCredential('lh_cc_limit', { rateLimitPerSecond: 1 }));
    const stale = await auth(b, 'lh_cc_limit');
    expect(stale).toMatchObject({ ok: true, credential: { rateLimitPerSecond: null } });
    clockOfB += BOUND;
    const fresh = await auth(b, 'lh_cc_limit');
    if (!fresh.ok) throw new Error('refused');
    expect(fresh.credential.rateLimitPerSecond).toBe(1);
    expect(await b.checkRateLimit(fresh.credential)).toEqual({ allowed: true });
    expect(await b.checkRateLimit(fresh.credential)).toEqual({ allowed: false, retryAfterSeconds: 1 });
  });

  it("a key's expiry date passes on the clock: at once where the clock moved, within the bound elsewhere", async () => {
    expect(await code(a, 'lh_cc_dated')).toBe('ok');
    await changedElsewhere('lh_cc_dated', () => a.controls.advanceClock(61_000));
    expect(await code(a, 'lh_cc_dated')).toBe('401 expired_api_key');
    clockOfB += BOUND;
    expect(await code(b, 'lh_cc_dated')).toBe('401 expired_api_key');
  });

  it('unknown keys are never cached: a key registered elsewhere works at once', async () => {
    expect(await code(b, 'lh_cc_new')).toBe('401 invalid_api_key');
    await a.addKeys([{ apiKey: 'lh_cc_new', credentialId: 'cred_cc_new', accountId: 'acct_cc' }]);
    expect(await code(b, 'lh_cc_new')).toBe('ok');
  });
});
