import { createHash } from 'node:crypto';
import {
  ALL_PERMISSIONS,
  EngineError,
  type AuthResult,
  type Credential,
  type CredentialUpdate,
  type KeyConfig,
  type Permission,
  type RateDecision,
} from '../../engine/index.js';
import { standingRefusal } from '../../engine/credentials.js';
import type { KeyStanding } from './credential-cache.js';
import type { SqlDriver, SqlSession } from './driver.js';
import { digest, one } from './sql-support.js';

interface KeyRow {
  credential_id: string;
  account_id: string;
  permissions: Permission[];
  spaces: string[] | null;
  blocked: boolean;
  expired: boolean;
  expires_at: number | null;
  rate_limit_per_second: number | null;
  suspended: boolean;
  now: number;
}

/** The name of an account's fence sequence (one per account: fences reveal nothing across accounts). */
function fenceSequenceOf(accountId: string): string {
  return `leasehold.fence_${createHash('md5').update(accountId, 'utf8').digest('hex')}`;
}

/**
 * Register keys (and their accounts, each with its fence sequence) in one transaction. A key
 * already known keeps its standing (blocked, expired, rate limit set through the controls);
 * its account, permissions and spaces follow the configuration.
 */
export async function registerKeys(driver: SqlDriver, keys: readonly KeyConfig[]): Promise<void> {
  await driver.transaction((tx) => writeKeys(tx, keys, 'keep'));
}

/**
 * Write `keys` (and their accounts) in `tx`. `standing: 'keep'`: a key already known keeps its
 * blocked, expired, `expiresAt` and rate limit; `'configured'`: the configuration's win (a
 * keys file that blocks or expires a key does so at the next start).
 */
export async function writeKeys(tx: SqlSession, keys: readonly KeyConfig[], standing: 'keep' | 'configured'): Promise<void> {
  for (const accountId of new Set(keys.map((k) => k.accountId))) await ensureAccount(tx, accountId);
  const standingColumns =
    standing === 'configured'
      ? `, blocked = EXCLUDED.blocked, expired = EXCLUDED.expired, expires_at = EXCLUDED.expires_at,
         rate_limit_per_second = EXCLUDED.rate_limit_per_second`
      : '';
  for (const key of keys) {
    const hash = digest(key.apiKey);
    await tx.query(
      `INSERT INTO leasehold.api_keys (key_hash, credential_id, account_id, permissions, spaces, blocked, expired, expires_at,
                                       rate_limit_per_second)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (key_hash) DO UPDATE SET credential_id = EXCLUDED.credential_id, account_id = EXCLUDED.account_id,
                                            permissions = EXCLUDED.permissions, spaces = EXCLUDED.spaces${standingColumns}`,
      [
        hash,
        key.credentialId ?? `cred_${hash.toString('hex').slice(0, 16)}`,
        key.accountId,
        [...(key.permissions ?? ALL_PERMISSIONS)],
        key.spaces === undefined || key.spaces === '*' ? null : key.spaces.map((s) => s.toLowerCase()),
        key.blocked ?? false,
        key.expired ?? false,
        key.expiresAt ?? null,
        key.rateLimitPerSecond ?? null,
      ],
    );
  }
}

async function ensureAccount(tx: SqlSession, accountId: string): Promise<void> {
  const sequence = fenceSequenceOf(accountId);
  const { rows } = await tx.query<{ account_id: string }>(
    'INSERT INTO leasehold.accounts (account_id, fence_seq) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING account_id',
    [accountId, sequence],
  );
  // Only the transaction that created the account creates its sequence (a concurrent one waits on the row).
  if (rows.length > 0) await tx.query(`CREATE SEQUENCE ${sequence} AS bigint MINVALUE 1`);
}

/** A key's standing as read now, with the database's time and clock mode at the read. */
export interface KeyRead extends KeyStanding {
  readonly now: number;
  readonly manual: boolean;
}

/** Read a key by its digest (one statement); `undefined` for an unknown key. */
export async function readKey(driver: SqlDriver, keyHash: Buffer): Promise<KeyRead | undefined> {
  const { rows } = await driver.query<KeyRow & { manual: boolean }>(
    `SELECT k.credential_id, k.account_id, k.permissions, k.spaces, k.blocked, k.expired, k.expires_at, k.rate_limit_per_second,
            a.suspended, leasehold.now_ms() AS now, c.manual
       FROM leasehold.api_keys k JOIN leasehold.accounts a USING (account_id) CROSS JOIN leasehold.clock c
      WHERE k.key_hash = $1`,
    [keyHash],
  );
  const row = rows[0];
  if (row === undefined) return undefined;
  const credential: Credential = Object.freeze({
    credentialId: row.credential_id,
    accountId: row.account_id,
    permissions: new Set(row.permissions),
    spaces: row.spaces === null ? '*' : new Set(row.spaces),
    rateLimitPerSecond: row.rate_limit_per_second,
  });
  return {
    credential,
    blocked: row.blocked,
    expired: row.expired,
    expiresAt: row.expires_at,
    suspended: row.suspended,
    now: row.now,
    manual: row.manual,
  };
}

/** The answer for a key's standing at `now` (store time): refused (401/402/403) or granted. */
export function judgeKey(standing: KeyStanding, now: number): AuthResult {
  return standingRefusal(standing, standing.suspended, now) ?? { ok: true, credential: standing.credential };
}

const ALLOWED: RateDecision = Object.freeze({ allowed: true });

/** Take one request from the credential's bucket in the database (no statement when unlimited). */
export async function takeToken(driver: SqlDriver, credential: Credential): Promise<RateDecision> {
  const rate = credential.rateLimitPerSecond;
  if (rate === null || !(rate > 0)) return ALLOWED;
  const { rows } = await driver.query<{ wait: number }>('SELECT leasehold.take_token($1, $2) AS wait', [credential.credentialId, rate]);
  const wait = one(rows).wait;
  return wait === 0 ? ALLOWED : { allowed: false, retryAfterSeconds: wait };
}

/** Change a key's standing; unknown keys are `invalid_request` (param `apiKey`), as in the engine. */
export async function updateCredential(tx: SqlSession, apiKey: string, changes: CredentialUpdate): Promise<void> {
  const { rowCount } = await tx.query(
    `UPDATE leasehold.api_keys SET blocked = coalesce($2, blocked), expired = coalesce($3, expired),
            rate_limit_per_second = CASE WHEN $4 THEN $5 ELSE rate_limit_per_second END
      WHERE key_hash = $1`,
    [digest(apiKey), changes.blocked ?? null, changes.expired ?? null, changes.rateLimitPerSecond !== undefined,
      changes.rateLimitPerSecond ?? null],
  );
  if (rowCount === 0) throw new EngineError('invalid_request', 'No such API key.', 'apiKey');
}
