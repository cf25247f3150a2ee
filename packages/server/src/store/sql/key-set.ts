import { DEFAULT_KEYS, type KeyConfig } from '../../engine/index.js';
import { writeKeys } from './credentials.js';
import type { SqlDriver } from './driver.js';
import { digest } from './sql-support.js';

const DEMO_KEYS = new Set(DEFAULT_KEYS.map((key) => key.apiKey));

/** Whether `keys` are the demo keys (or some of them): what a server started without `--keys` gets. */
export function isDemoKeySet(keys: readonly KeyConfig[]): boolean {
  return keys.length > 0 && keys.every((key) => DEMO_KEYS.has(key.apiKey));
}

/**
 * Make `keys` the database's API keys, in one transaction (docs/operating.md, "API keys in
 * production"). A configured set (a keys file) replaces what is there: its keys are written
 * with the standing it gives them (blocked, expired, `expiresAt`, rate limit), every other
 * key is deleted (with its rate bucket), and `key_sets` records that a set was configured —
 * the last process to start with a set makes it every process's set; each process's
 * credential cache lets a deleted or changed key act for at most `credentialCacheMs` more. The
 * demo keys never replace a set: they are registered only in a database that never had one.
 * Processes adopting sets at once take their turns (a table lock on `key_sets`).
 */
export async function adoptKeySet(driver: SqlDriver, keys: readonly KeyConfig[]): Promise<'configured' | 'demo' | 'kept'> {
  return driver.transaction(async (tx) => {
    await tx.query('LOCK TABLE leasehold.key_sets IN EXCLUSIVE MODE');
    if (isDemoKeySet(keys)) {
      const { rows } = await tx.query('SELECT 1 FROM leasehold.key_sets');
      if (rows.length > 0) return 'kept';
      await writeKeys(tx, keys, 'keep');
      return 'demo';
    }
    const hashes = keys.map((key) => digest(key.apiKey).toString('hex'));
    await tx.query(
      `DELETE FROM leasehold.api_keys WHERE key_hash <> ALL (SELECT decode(h, 'hex') FROM unnest($1::text[]) h)`,
      [hashes],
    );
    await tx.query(
      `DELETE FROM leasehold.rate_buckets b WHERE NOT EXISTS (SELECT 1 FROM leasehold.api_keys k WHERE k.credential_id = b.credential_id)`,
    );
    await writeKeys(tx, keys, 'configured');
    await tx.query(
      `INSERT INTO leasehold.key_sets (singleton, configured_at, key_count) VALUES (true, leasehold.now_ms(), $1)
       ON CONFLICT (singleton) DO UPDATE SET configured_at = EXCLUDED.configured_at, key_count = EXCLUDED.key_count`,
      [keys.length],
    );
    return 'configured';
  });
}
