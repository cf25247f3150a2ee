/**
 * The ceilings of the SQL store benchmarks: what a hand-written client of the database pays
 * for the same work, sent directly through the same driver (prepared statements with `pg`), no
 * transaction, no authentication. Renew (with a record and without) and the heartbeat send the
 * store's own statements; acquire+release and send+receive+ack send minimal statements (key row,
 * lease, release; send, receive, ack). Also a bulk seed of held space claims (for the 10,000-lease heartbeat and the sweep).
 */
import { createHash, randomUUID } from 'node:crypto';
import { IDEMPOTENCY_TTL_MS } from '../../packages/server/src/engine/index.js';
import { HEARTBEAT_RENEW_SQL, HEARTBEAT_SETTLE_SQL, heartbeatRenewParams } from '../../packages/server/src/store/sql/heartbeat.js';
import type { DirectSql } from './sql-backends.js';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/**
 * The store's renew statement as it stood before it became a function (`space-claims.ts`): one
 * `UPDATE … RETURNING` that extends when the token holds the key now, and otherwise returns the
 * row that says why not. `$1` claim id, `$2` token digest, `$3` seconds, `$4` account, `$5` space, `$6` key.
 */
export const RENEW_SQL = `WITH c AS (SELECT leasehold.now_ms() AS now),
u AS (
  UPDATE leasehold.leases l SET lease_seconds = $3::int, expires_at = c.now + $3::int * 1000::bigint
    FROM c
   WHERE l.claim_id = $1 AND l.token_hash = $2 AND l.kind = 'space' AND l.account_id = $4
     AND l.space_id = $5 AND l.key = $6 AND l.status = 'held' AND l.expires_at > c.now
  RETURNING l.lease_id, l.expires_at
)
SELECT l.lease_id, l.claim_id, l.kind, l.account_id, l.space_id, l.key, l.scope_id, l.holder, l.holder_session,
       l.status, l.lost_reason, l.ended_at, l.fence, $3::int AS lease_seconds, l.expires_at, l.acquired_at, l.details,
       k.prev_release, c.now, (u.lease_id IS NOT NULL) AS renewed, u.expires_at AS new_expires_at,
       (SELECT count(*)::int FROM leasehold.leases q
         WHERE q.key_id = l.key_id AND q.kind = 'space' AND q.status = 'queued' AND q.expires_at > c.now) AS queue_depth,
       0 AS position
  FROM c CROSS JOIN leasehold.leases l
  LEFT JOIN u ON u.lease_id = l.lease_id
  LEFT JOIN leasehold.space_keys k ON k.key_id = l.key_id
 WHERE l.claim_id = $1 AND l.token_hash = $2`;

/** A held claim as the ceilings address it. */
export interface DirectClaim {
  claimId: string;
  token: string;
  key: string;
}

/**
 * The store's renew with an Idempotency-Key as one statement (`renew_space_claim` with a fresh
 * record: its hash, advisory lock, fingerprint and TTL — the function checks the record, renews
 * and stores the outcome), sent directly: what a hand-written client keeping idempotency records
 * in the same table pays. `withLock` false on PGlite (one session; the store sends no lock there).
 */
export async function directRenewKeyed(db: DirectSql, claim: DirectClaim, accountId: string, spaceId: string, seconds: number, withLock: boolean): Promise<void> {
  const hash = sha256(`bench-record/${randomUUID()}`);
  const rows = await db.query<{ verdict: string }>(
    'SELECT verdict FROM leasehold.renew_space_claim($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)',
    [claim.claimId, sha256(claim.token), seconds, accountId, spaceId, claim.key, hash, withLock ? hash.readBigInt64BE(0).toString() : null, 'bench-fingerprint', IDEMPOTENCY_TTL_MS],
    'bench_renew_keyed',
  );
  if (rows[0]?.verdict !== 'ran') throw new Error(`direct keyed renew: ${rows[0]?.verdict ?? 'no row'}`);
}

/** Renew one claim directly (one statement). */
export async function directRenew(db: DirectSql, claim: DirectClaim, accountId: string, spaceId: string, seconds: number): Promise<void> {
  const rows = await db.query<{ renewed: boolean }>(
    RENEW_SQL,
    [claim.claimId, sha256(claim.token), seconds, accountId, spaceId, claim.key],
    'bench_renew',
  );
  if (rows[0]?.renewed !== true) throw new Error('direct renew did not renew');
}

const KEY_SQL = `INSERT INTO leasehold.space_keys (account_id, space_id, key, sort_key) VALUES ($1, $2, $3, $4)
ON CONFLICT (account_id, space_id, key) DO UPDATE SET key = EXCLUDED.key
RETURNING key_id, holder_lease`;

const ACQUIRE_SQL = `WITH l AS (
  INSERT INTO leasehold.leases (claim_id, kind, token_hash, account_id, credential_id, holder_session, status, fence,
                                expires_at, lease_seconds, acquired_at, key_id, space_id, key, scope_id, holder)
  SELECT $2, 'space', $3, $4, $5, 'bench', 'held', nextval(a.fence_seq::regclass), n.now + 30000, 30, n.now,
         k.key_id, k.space_id, k.key, $6, 'bench'
    FROM leasehold.space_keys k, leasehold.accounts a, (SELECT leasehold.now_ms() AS now) n
   WHERE k.key_id = $1 AND k.holder_lease IS NULL AND a.account_id = $4
  RETURNING lease_id, key_id, fence
)
UPDATE leasehold.space_keys s SET holder_lease = l.lease_id, forget_at = NULL FROM l WHERE s.key_id = l.key_id
RETURNING l.fence`;

const RELEASE_SQL = `WITH n AS (SELECT leasehold.now_ms() AS now), l AS (
  UPDATE leasehold.leases SET status = 'released', released_at = n.now, ended_at = n.now, observation = 'null'
    FROM n WHERE claim_id = $1 AND token_hash = $2 AND status = 'held'
  RETURNING lease_id, key_id
)
UPDATE leasehold.space_keys s SET holder_lease = NULL, forget_at = n.now + 600000
  FROM l, n WHERE s.key_id = l.key_id AND s.holder_lease = l.lease_id`;

/** The key's sort key as the store computes it (UTF-16 code units, big-endian). */
function sortKeyOf(key: string): Buffer {
  const out = Buffer.allocUnsafe(key.length * 2);
  for (let i = 0; i < key.length; i++) out.writeUInt16BE(key.charCodeAt(i), i * 2);
  return out;
}

/** Acquire a free key (its row, then the lease) and release it again, directly (three statements). */
export async function directAcquireRelease(
  db: DirectSql,
  ids: { accountId: string; credentialId: string; spaceId: string; scopeId: string },
  key: string,
  claimId: string,
): Promise<void> {
  const token = `tok_${claimId}`;
  const hash = sha256(token);
  const row = (await db.query<{ key_id: number; holder_lease: number | null }>(KEY_SQL, [ids.accountId, ids.spaceId, key, sortKeyOf(key)], 'bench_key'))[0];
  if (row === undefined || row.holder_lease !== null) throw new Error(`direct acquire of ${key} found it held`);
  const got = await db.query(ACQUIRE_SQL, [row.key_id, claimId, hash, ids.accountId, ids.credentialId, ids.scopeId], 'bench_acquire');
  if (got.length !== 1) throw new Error(`direct acquire of ${key} found it held`);
  await db.query(RELEASE_SQL, [claimId, hash], 'bench_release');
}

const SEND_SQL = `INSERT INTO leasehold.messages (queue_id, account_id, spool, public_id, handle, body, sent_at, visible_at)
SELECT $1, $2, $3, $4, $5, $6, n.now, n.now FROM (SELECT leasehold.now_ms() AS now) n`;

const RECEIVE_SQL = `WITH n AS (SELECT leasehold.now_ms() AS now), m AS (
  SELECT message_id FROM leasehold.messages, n
   WHERE queue_id = $1 AND lease_id IS NULL AND visible_at <= n.now
   ORDER BY message_id LIMIT 1 FOR UPDATE SKIP LOCKED
), l AS (
  INSERT INTO leasehold.leases (claim_id, kind, token_hash, account_id, credential_id, status, fence, expires_at,
                                lease_seconds, acquired_at, message_id)
  SELECT $2, 'spool', $3, $4, $5, 'held', nextval(a.fence_seq::regclass), n.now + 60000, 60, n.now, m.message_id
    FROM m, n, leasehold.accounts a WHERE a.account_id = $4
  RETURNING lease_id, message_id, expires_at
)
UPDATE leasehold.messages x SET lease_id = l.lease_id, lease_expires_at = l.expires_at, delivery_count = x.delivery_count + 1
  FROM l WHERE x.message_id = l.message_id
RETURNING x.message_id, x.body`;

const ACK_SQL = `WITH l AS (
  DELETE FROM leasehold.leases WHERE claim_id = $1 AND token_hash = $2 AND status = 'held' RETURNING lease_id, message_id
)
DELETE FROM leasehold.messages m USING l WHERE m.message_id = l.message_id AND m.lease_id = l.lease_id`;

/** Send a message, receive one, ack it, directly (three statements; `false` when the queue was empty). */
export async function directSendReceiveAck(
  db: DirectSql,
  ids: { accountId: string; credentialId: string; queueId: number; spool: string },
  id: string,
): Promise<boolean> {
  await db.query(SEND_SQL, [ids.queueId, ids.accountId, ids.spool, `msg_${id}`, `hdl_${id}`, '{"n":1}'], 'bench_send');
  const token = `sl_${id}`;
  const hash = sha256(token);
  const got = await db.query(RECEIVE_SQL, [ids.queueId, `clm_${id}`, hash, ids.accountId, ids.credentialId], 'bench_receive');
  if (got.length === 0) return false;
  await db.query(ACK_SQL, [`clm_${id}`, hash], 'bench_ack');
  return true;
}

/** The heartbeat's statements (the store's own), sent directly: now, settle, renew every lease. */
export async function directHeartbeat(db: DirectSql, credentialId: string, session: string, seconds: number): Promise<number> {
  const now = (await db.query<{ now: number }>('SELECT leasehold.now_ms() AS now', [], 'bench_now'))[0]?.now as number;
  await db.query(HEARTBEAT_SETTLE_SQL, [credentialId, now, session, null], 'bench_hb_settle');
  const rows = await db.query<{ acks: string | null }>(
    HEARTBEAT_RENEW_SQL,
    heartbeatRenewParams({ credentialId, now, session, claimIds: null, single: false, seconds, details: undefined }),
    'bench_hb_renew',
  );
  // One text, a line per lease (heartbeat.ts, AckFields).
  const acks = rows[0]?.acks ?? null;
  return acks === null ? 0 : acks.split('\n').length;
}

/**
 * Insert `count` held space claims in bulk (what `count` acquires would leave: a key row each,
 * pointing at its lease; fences from the account's sequence): set-up only, never measured.
 */
export async function seedHeldClaims(
  db: DirectSql,
  p: { accountId: string; credentialId: string; spaceId: string; scopeId: string; session: string; prefix: string; count: number; leaseSeconds: number },
): Promise<void> {
  await db.query(
    `INSERT INTO leasehold.space_keys (account_id, space_id, key, sort_key)
     SELECT $1, $2, $3 || g, decode(regexp_replace(encode(convert_to($3 || g, 'UTF8'), 'hex'), '(..)', '00\\1', 'g'), 'hex')
       FROM generate_series(1, $4::int) g`,
    [p.accountId, p.spaceId, p.prefix, p.count],
  );
  await db.query(
    `WITH l AS (
       INSERT INTO leasehold.leases (claim_id, kind, token_hash, account_id, credential_id, holder_session, status, fence,
                                     expires_at, lease_seconds, acquired_at, key_id, space_id, key, scope_id, holder)
       SELECT 'clm_' || md5(k.key_id::text || k.key), 'space', sha256(convert_to(k.key, 'UTF8')), k.account_id, $4, $5, 'held',
              nextval(a.fence_seq::regclass), n.now + $6::bigint * 1000, $6, n.now, k.key_id, k.space_id, k.key, $7, 'bench'
         FROM leasehold.space_keys k JOIN leasehold.accounts a USING (account_id), (SELECT leasehold.now_ms() AS now) n
        WHERE k.account_id = $1 AND k.space_id = $2 AND starts_with(k.key, $3) AND k.holder_lease IS NULL
       RETURNING lease_id, key_id
     )
     UPDATE leasehold.space_keys s SET holder_lease = l.lease_id FROM l WHERE s.key_id = l.key_id`,
    [p.accountId, p.spaceId, p.prefix, p.credentialId, p.session, p.leaseSeconds, p.scopeId],
  );
}
