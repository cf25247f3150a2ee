/**
 * Several processes on one PostgreSQL started with different key sets: the last to start makes
 * its set the database's, and every process honours it within its credential cache's bound
 * (`credentialCacheMs`, aged here by an injected clock); a start with the demo keys changes
 * nothing in a database that has a configured set.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_KEYS, type KeyConfig } from '../../packages/server/src/engine/index.js';
import { SqlStore, createPgDriver } from '../../packages/server/src/store/index.js';
import { createTestDatabase } from '../support/postgres-database.js';

const OLD: KeyConfig[] = [{ apiKey: 'lh_set_old', accountId: 'acct_set' }, { apiKey: 'lh_set_both', accountId: 'acct_set' }];
const NEW: KeyConfig[] = [{ apiKey: 'lh_set_new', accountId: 'acct_set' }, { apiKey: 'lh_set_both', accountId: 'acct_set' }];

let url: string;
let drop: () => Promise<void>;
const stores: SqlStore[] = [];

async function open(keys: readonly KeyConfig[], cacheClock: () => number = () => 0): Promise<SqlStore> {
  const store = await SqlStore.open(createPgDriver({ url, poolSize: 2 }), { keys, sweepIntervalMs: 0, credentialCacheMs: 1000, cacheClock });
  stores.push(store);
  return store;
}

async function status(store: SqlStore, apiKey: string): Promise<string> {
  const auth = await store.authenticate(`Bearer ${apiKey}`);
  return auth.ok ? 'ok' : String(auth.code);
}

beforeAll(async () => {
  ({ url, drop } = await createTestDatabase());
}, 60_000);

afterAll(async () => {
  for (const store of stores) await store.close();
  await drop?.();
});

describe('key sets on one database', () => {
  it('the last process to start sets the keys of every process, within the cache bound', async () => {
    let now = 0;
    const old = await open(OLD, () => now);
    expect([await status(old, 'lh_set_old'), await status(old, 'lh_set_both'), await status(old, 'lh_set_new')]).toEqual(['ok', 'ok', 'invalid_api_key']);

    await open(NEW);
    // The old process still answers from its cache (read less than 1 s ago), new keys at once (unknown keys are not cached).
    expect(await status(old, 'lh_set_old')).toBe('ok');
    expect(await status(old, 'lh_set_new')).toBe('ok');
    now = 1000;
    expect([await status(old, 'lh_set_old'), await status(old, 'lh_set_both'), await status(old, 'lh_set_new')]).toEqual(['invalid_api_key', 'ok', 'ok']);

    // A process started with the demo keys serves the configured set: no demo key appears.
    const demo = await open(DEFAULT_KEYS);
    expect([await status(demo, 'lh_test_admin'), await status(demo, 'lh_set_new')]).toEqual(['invalid_api_key', 'ok']);
  });
});
