/**
 * The keys file is the authority, across real restarts of the CLI on one store (this project's:
 * memory, a PostgreSQL database, an embedded directory): a server restarted with `--keys` no
 * longer grants the demo keys; a key removed from the file, blocked, expired or past its
 * `expiresAt` stops working at the next start; a key added works. A database that was started
 * with a keys file never gets the demo keys back from a later start without `--keys`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli } from '../support/cli-process.js';
import { seedPgliteDirectory } from '../support/pglite-template.js';
import { TEST_STORE, cliStoreArgs } from '../support/test-store.js';

const ACCOUNT = 'acct_prod';
let store: { args: string[]; dispose(): Promise<void> };
let dir: string;

beforeAll(async () => {
  store = await cliStoreArgs();
  // An embedded directory gets the migrated schema first (the CLI would migrate an empty one).
  if (TEST_STORE === 'pglite') await seedPgliteDirectory(store.args[1] as string);
  dir = mkdtempSync(join(tmpdir(), 'leasehold-keys-'));
}, 180_000);

afterAll(async () => {
  await store?.dispose();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

/** Starts the CLI on the store (with `keys` as its keys file, or the demo keys), asks each key's status, stops it. */
async function statusesAfterStart(keys: unknown[] | undefined, apiKeys: string[]): Promise<Record<string, number>> {
  const args = ['--port', '0', '--clock', 'real', ...store.args];
  if (keys !== undefined) {
    const file = join(dir, `keys-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, JSON.stringify({ keys }));
    args.push('--keys', file);
  }
  const cli = spawnCli(args);
  try {
    const origin = await cli.listening(120_000);
    const statuses: Record<string, number> = {};
    for (const apiKey of apiKeys) {
      const answer = await fetch(`${origin}/v1/tasks`, { headers: { authorization: `Bearer ${apiKey}` } });
      await answer.arrayBuffer();
      statuses[apiKey] = answer.status;
    }
    return statuses;
  } finally {
    await cli.stop();
  }
}

describe('a keys file across restarts', () => {
  it('revokes what it no longer grants and never brings the demo keys back', { timeout: 600_000 }, async () => {
    expect(await statusesAfterStart(undefined, ['lh_test_admin'])).toEqual({ lh_test_admin: 200 });

    const first = [
      { apiKey: 'lh_prod_kept', accountId: ACCOUNT },
      { apiKey: 'lh_prod_removed', accountId: ACCOUNT },
      { apiKey: 'lh_prod_blocked_later', accountId: ACCOUNT },
      { apiKey: 'lh_prod_expired_later', accountId: ACCOUNT },
      { apiKey: 'lh_prod_past_later', accountId: ACCOUNT },
    ];
    expect(await statusesAfterStart(first, ['lh_test_admin', 'lh_test_reader', ...first.map((k) => k.apiKey)])).toEqual({
      lh_test_admin: 401,
      lh_test_reader: 401,
      lh_prod_kept: 200,
      lh_prod_removed: 200,
      lh_prod_blocked_later: 200,
      lh_prod_expired_later: 200,
      lh_prod_past_later: 200,
    });

    const second = [
      { apiKey: 'lh_prod_kept', accountId: ACCOUNT },
      { apiKey: 'lh_prod_blocked_later', accountId: ACCOUNT, blocked: true },
      { apiKey: 'lh_prod_expired_later', accountId: ACCOUNT, expired: true },
      { apiKey: 'lh_prod_past_later', accountId: ACCOUNT, expiresAt: Date.UTC(2020, 0, 1) },
      { apiKey: 'lh_prod_added', accountId: ACCOUNT },
    ];
    expect(await statusesAfterStart(second, ['lh_test_admin', 'lh_prod_removed', ...second.map((k) => k.apiKey)])).toEqual({
      lh_test_admin: 401,
      lh_prod_removed: 401,
      lh_prod_kept: 200,
      lh_prod_blocked_later: 403,
      lh_prod_expired_later: 401,
      lh_prod_past_later: 401,
      lh_prod_added: 200,
    });

    // No database to remember a keys file on memory: a start without --keys is the demo server again there.
    if (TEST_STORE === 'memory') return;
    expect(await statusesAfterStart(undefined, ['lh_test_admin', 'lh_prod_kept', 'lh_prod_removed'])).toEqual({
      lh_test_admin: 401,
      lh_prod_kept: 200,
      lh_prod_removed: 401,
    });
  });
});
