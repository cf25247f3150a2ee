import {
  EngineError,
  SPACE_LEASE_MAX_SECONDS,
  SPACE_LEASE_MIN_SECONDS,
  TASK_LEASE_SECONDS,
  heartbeatClaimId,
  parseTtl,
  type HeartbeatResponse,
  type HeartbeatResult,
} from '../../engine/index.js';
import { checkDetails } from '../../engine/engine.js';
import type { Operations } from '../operations.js';
import { SAMPLE_MS } from '../../engine/queue-history.js';
import { TOMBSTONE_MS, clockNow, type UnitContext } from './sql-support.js';

/**
 * One ack of `HEARTBEAT_RENEW_SQL`'s answer, as the statement writes it: `claimId status kind
 * expiresAt queueDepth position`, space-separated, a missing value empty (no field can hold a
 * space: claim ids are `clm_` and base62, the rest words and integers).
 */
type AckFields = [claimId: string, status: string, kind: string, expiresAt: string, queueDepth: string, position: string];

/**
 * The heartbeat's second statement: settle the keys of the caller's space leases where
 * something fell due (the holder or a waiter; FIFO hand-over). The caller's leases are found by
 * `leases_of_session`, and each one's key is checked with one probe of `leases_on_key` (any live
 * lease of the key at or past its expiry: a held space lease is its key's holder), so the plan
 * stays linear in the caller's leases whatever the statistics say and reads no other lease of
 * the database. `$1` credential, `$2` now, `$3` holder session or null, `$4` claim ids or null.
 */
export const HEARTBEAT_SETTLE_SQL = `SELECT count(leasehold.settle_key(key_id, $2)) FROM (
     SELECT DISTINCT l.key_id FROM leasehold.leases l
      WHERE l.credential_id = $1 AND l.kind = 'space' AND l.status IN ('held', 'queued')
        AND ($3::text IS NULL OR l.holder_session = $3) AND ($4::text[] IS NULL OR l.claim_id = ANY($4))
        AND EXISTS (SELECT 1 FROM leasehold.leases d
                     WHERE d.key_id = l.key_id AND d.kind = 'space' AND d.status IN ('held', 'queued') AND d.expires_at <= $2)
      ORDER BY l.key_id) due`;

/** The lease row `l` is live at `$2`: it is renewed; otherwise it is reported lost. */
const LIVE = `(l.status IN ('held', 'queued') AND (l.expires_at IS NULL OR l.expires_at > $2))`;

/**
 * A renewed lease's new expiry by its kind's rule (space: never earlier; task: the task term;
 * spool: the queue's lease timeout), over the row `l` of `HEARTBEAT_RENEW_SQL`.
 */
const RENEWED_EXPIRY = `CASE
         WHEN l.kind = 'space' THEN greatest(l.expires_at, coalesce($6::bigint, $2::bigint + l.lease_seconds::bigint * 1000))
         WHEN l.kind = 'task' THEN $2::bigint + ${TASK_LEASE_SECONDS * 1000}
         ELSE $2::bigint + (SELECT q.lease_timeout_seconds FROM leasehold.messages m JOIN leasehold.queues q ON q.queue_id = m.queue_id
                             WHERE m.message_id = l.message_id)::bigint * 1000 END`;

/**
 * The heartbeat's third statement: renew every live lease of the working set by its kind's
 * rule, report unreported losses once, copy spool expiries onto their messages; answers one
 * text, a line per lease in lease order (`AckFields`), and counts the heartbeat of its session (`session_heartbeats`). The working set is
 * locked in lease order first, each row judged live or not as locked (a locked row cannot change
 * before the updates run; each update re-checks it all the same); the renewing update reaches the
 * live rows by primary key (`= ANY`), the reporting one only the rest (none, mostly), so the work
 * is linear in the caller's leases, not in the table, and no row is probed twice. The queue depths are one aggregate over the waiters
 * of the renewed keys (`leases_waiting`), not a probe per lease. A renewal writes no indexed
 * column (`due_at` moves only when a renewal would shorten the lease: 0013), so it is a HOT
 * update. The acks travel as one value, not a row each: decoding 10,000 rows of 7 columns was ~16 ms of
 * a beat in the driver (70,000 fields), splitting the lines ~2 ms. Parameters: `heartbeatRenewParams`.
 */
export const HEARTBEAT_RENEW_SQL = `WITH mine AS MATERIALIZED (
     SELECT l.lease_id, ${LIVE} AS live FROM leasehold.leases l
      WHERE l.credential_id = $1
        AND (l.status IN ('held', 'queued') OR (l.status = 'lost' AND (NOT l.reported OR $5)))
        AND coalesce(CASE WHEN l.status IN ('held', 'queued') THEN l.expires_at ELSE l.ended_at END + ${TOMBSTONE_MS} > $2, true)
        AND ($3::text IS NULL OR l.holder_session = $3) AND ($4::text[] IS NULL OR l.claim_id = ANY($4))
      ORDER BY l.lease_id FOR UPDATE
   ), renewed AS (
     UPDATE leasehold.leases l SET
       expires_at = ${RENEWED_EXPIRY},
       due_at = least(l.due_at, ${RENEWED_EXPIRY}),
       lease_seconds = CASE
         WHEN l.kind = 'space' AND l.status = 'held' AND $6::bigint >= l.expires_at THEN $7::int
         WHEN l.kind = 'spool' THEN (SELECT q.lease_timeout_seconds FROM leasehold.messages m JOIN leasehold.queues q ON q.queue_id = m.queue_id
                                     WHERE m.message_id = l.message_id)
         ELSE l.lease_seconds END,
       details = CASE WHEN $8 THEN $9::text ELSE l.details END
      WHERE l.lease_id = ANY (ARRAY(SELECT lease_id FROM mine WHERE live)) AND ${LIVE}
     RETURNING l.lease_id, l.claim_id, l.kind, l.status, l.expires_at, l.key_id, l.message_id
   ), lost AS (
     UPDATE leasehold.leases l SET
       reported = true,
       status = 'lost',
       lost_reason = CASE WHEN l.status = 'queued' THEN 'lapsed' WHEN l.status = 'held' THEN 'expired' ELSE l.lost_reason END,
       ended_at = CASE WHEN l.status IN ('held', 'queued') THEN l.expires_at ELSE l.ended_at END
      WHERE l.lease_id = ANY (ARRAY(SELECT lease_id FROM mine WHERE NOT live)) AND NOT ${LIVE}
     RETURNING l.lease_id, l.claim_id
   ), synced AS (
     UPDATE leasehold.messages m SET lease_expires_at = t.expires_at
       FROM renewed t WHERE t.kind = 'spool' AND m.message_id = t.message_id AND m.lease_id = t.lease_id
   ), counted AS (
     INSERT INTO leasehold.session_heartbeats AS s (account_id, holder_session, bucket, beats, last_at)
     SELECT $10, $3, $2::bigint / ${SAMPLE_MS}, 1, $2 WHERE $10::text IS NOT NULL AND $3::text IS NOT NULL
     ON CONFLICT (account_id, holder_session, bucket) DO UPDATE SET beats = s.beats + 1, last_at = greatest(s.last_at, excluded.last_at)
   ), waiting AS (
     SELECT q.key_id, count(*)::int AS depth FROM leasehold.leases q
      WHERE q.kind = 'space' AND q.status = 'queued' AND q.expires_at > $2
        AND q.key_id IN (SELECT r.key_id FROM renewed r WHERE r.kind = 'space')
      GROUP BY q.key_id
   ), acks AS (
     SELECT t.lease_id, t.claim_id, t.status, t.kind, t.expires_at,
            CASE WHEN t.kind = 'space' THEN coalesce(w.depth, 0) END AS queue_depth,
            CASE WHEN t.kind = 'space' AND t.status = 'queued' THEN (SELECT count(*)::int FROM leasehold.leases q
              WHERE q.key_id = t.key_id AND q.kind = 'space' AND q.status = 'queued' AND q.expires_at > $2
                AND q.lease_id <= t.lease_id) END AS position
       FROM renewed t LEFT JOIN waiting w ON w.key_id = t.key_id
     UNION ALL
     SELECT lease_id, claim_id, 'lost', NULL, NULL, NULL, NULL FROM lost
   )
   SELECT string_agg(concat(claim_id, ' ', status, ' ', kind, ' ', expires_at, ' ', queue_depth, ' ', position), E'\n' ORDER BY lease_id) AS acks
     FROM acks`;

/** The parameters of `HEARTBEAT_RENEW_SQL`. */
export function heartbeatRenewParams(p: {
  credentialId: string;
  now: number;
  session: string | null;
  claimIds: string[] | null;
  /** A named form (one `claimId` or `claimIds`): losses already reported are reported again. */
  single: boolean;
  /** Clamped seconds, or `null`: each space claim for its own term (`lease_seconds`). */
  seconds: number | null;
  details: unknown;
  /** Count the heartbeat of `session` for this account (the activity views' rate); absent: not counted. */
  accountId?: string | undefined;
}): unknown[] {
  const spaceExpiry = p.seconds === null ? null : Math.round(p.now + p.seconds * 1000);
  return [p.credentialId, p.now, p.session, p.claimIds, p.single, spaceExpiry, p.seconds === null ? null : Math.round(p.seconds),
    p.details !== undefined, p.details === undefined || p.details === null ? null : JSON.stringify(p.details), p.accountId ?? null];
}

/**
 * The batch heartbeat in a constant number of statements, whatever the number of leases: the
 * clock; one that settles the keys of the caller's space leases where something fell due (FIFO
 * hand-over); one that renews every live lease of the working set by its kind's rule (held space
 * claims never move earlier), reports each loss once, and copies spool expiries onto their
 * messages. The filters (`holderSession`, the claim ids) are parameters of those statements.
 */
export function sqlHeartbeat(unit: UnitContext): Operations['heartbeat'] {
  const { tx } = unit;
  return async (raw) => {
    const request = { ...raw, claimId: heartbeatClaimId(raw.claimId) };
    const ttl = parseTtl(request.ttl);
    const details = checkDetails(request.details);
    const credentialId = request.credential.credentialId;
    const session = request.holderSession ?? null;
    const now = await clockNow(tx);
    const single = request.claimId !== undefined;
    if (request.claimIds !== undefined && single) throw new EngineError('invalid_request', 'Send claimId or claimIds, not both.', 'claimIds');
    if (single) {
      const { rows } = await tx.query<{ credential_id: string; status: string; holder_session: string | null; gone: boolean }>(
        `SELECT credential_id, status, holder_session,
                (status IN ('lost', 'released') AND ended_at + ${TOMBSTONE_MS} <= $2)
                OR (status IN ('held', 'queued') AND expires_at + ${TOMBSTONE_MS} <= $2) AS gone
           FROM leasehold.leases WHERE claim_id = $1`,
        [request.claimId, now],
      );
      const lease = rows[0];
      if (
        lease === undefined ||
        lease.gone ||
        lease.credential_id !== credentialId ||
        lease.status === 'released' ||
        (session !== null && lease.holder_session !== session)
      ) {
        throw new EngineError('claim_not_found', 'No lease of this credential has that claimId.', 'claimId');
      }
    }
    // The claimIds form: exactly the leases named, each distinct id once, in the order named.
    const named = request.claimIds === undefined ? undefined : [...new Set(request.claimIds)];
    const claimIds = single ? [request.claimId as string] : (named ?? null);
    await tx.query(HEARTBEAT_SETTLE_SQL, [credentialId, now, session, claimIds]);
    const seconds = ttl === null ? null : Math.min(SPACE_LEASE_MAX_SECONDS, Math.max(SPACE_LEASE_MIN_SECONDS, ttl));
    const { rows } = await tx.query<{ acks: string | null }>(
      HEARTBEAT_RENEW_SQL,
      heartbeatRenewParams({ credentialId, now, session, claimIds, single: single || named !== undefined, seconds, details, accountId: request.credential.accountId }),
    );
    const text = rows[0]?.acks ?? null;
    const acks = text === null ? [] : text.split('\n').map((line) => ackOf(line.split(' ') as AckFields));
    // A named id this heartbeat may not touch (unknown, released, another credential's or
    // session's) is answered lost, like the engine, so a stale id never fails the batch.
    const byId = new Map(acks.map((ack) => [ack.claimId, ack]));
    const results = named === undefined ? acks : named.map((claimId): HeartbeatResult => byId.get(claimId) ?? { claimId, status: 'lost' });
    const response: HeartbeatResponse = { object: 'list', results };
    return response;
  };
}

/** One ack in the engine's shape (and field order) for its kind. */
function ackOf([claimId, status, kind, expiresAt, queueDepth, position]: AckFields): HeartbeatResult {
  if (status === 'lost') return { claimId, status: 'lost' };
  if (kind === 'space') {
    if (status === 'held') return { claimId, status: 'held', expiresAt: Number(expiresAt), queueDepth: Number(queueDepth) };
    return { claimId, status: 'queued', expiresAt: Number(expiresAt), position: Number(position), queueDepth: Number(queueDepth) };
  }
  const ack: HeartbeatResult = { claimId, status: 'held' };
  if (expiresAt !== '') ack.expiresAt = Number(expiresAt);
  return ack;
}
