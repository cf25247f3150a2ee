import {
  EngineError,
  MAX_LOST_SHOWN,
  SAMPLE_COUNT,
  TOMBSTONE_MS,
  bucketOf,
  canSeeSpace,
  eventId,
  firstRateBucket,
  eventQuery,
  mayRead,
  pageQuery,
  queueSortKey,
  samplesOf,
  type Credential,
  type LeaseEvent,
  type LostClaim,
  type SampleCounts,
  type Waiter,
} from '../../engine/index.js';
import { encodeCursor } from '../../engine/space-keys.js';
import { requireUuid } from '../../engine/validation.js';
import type { ActivityOperations } from '../operations.js';
import type { SqlSession } from './driver.js';
import { sqlQueueActivity } from './queue-activity.js';
import { sqlSpaceClaims } from './space-claims.js';
import { clockNow, type UnitContext } from './sql-support.js';

/** The spaces a credential sees, as a statement parameter (`null`: every space). */
function spacesParam(credential: Credential): string[] | null {
  return credential.spaces === '*' ? null : [...credential.spaces];
}

/**
 * Bring the account's lease events up to date at `now`: settle every key with a space lease due
 * (hand-overs and losses are recorded by the trigger), and record the expiry of task and spool
 * leases whose time ran out (their rows change only when the resource is next used).
 */
async function recordDue(tx: SqlSession, accountId: string, now: number): Promise<void> {
  await tx.query(
    `SELECT count(leasehold.settle_key(key_id, $2)) FROM (
       SELECT DISTINCT key_id FROM leasehold.leases
        WHERE account_id = $1 AND kind = 'space' AND status IN ('held', 'queued') AND due_at <= $2 AND expires_at <= $2
        ORDER BY key_id) due`,
    [accountId, now],
  );
  await tx.query(
    `SELECT leasehold.record_lease_event(l, 'expired', l.expires_at, 'expired', true) FROM leasehold.leases l
      WHERE l.account_id = $1 AND l.kind <> 'space' AND l.status = 'held' AND l.expires_at <= $2
        AND NOT EXISTS (SELECT 1 FROM leasehold.lease_events e WHERE e.end_lease_id = l.lease_id)
      ORDER BY l.expires_at, l.lease_id`,
    [accountId, now],
  );
}

interface EventRow {
  feed_position: number;
  type: LeaseEvent['type'];
  kind: LeaseEvent['kind'];
  at: number;
  claim_id: string;
  holder: string | null;
  holder_session: string | null;
  fence: number | null;
  space_id: string | null;
  key: string | null;
  scope_id: string | null;
  task_id: number | null;
  spool: string | null;
  queue: string | null;
  reason: LeaseEvent['reason'];
}

const EVENT_COLUMNS = 'feed_position, type, kind, at, claim_id, holder, holder_session, fence, space_id, key, scope_id, task_id, spool, queue, reason';

function eventOf(row: EventRow): LeaseEvent {
  return {
    object: 'lease_event',
    id: eventId(row.feed_position),
    type: row.type,
    kind: row.kind,
    at: row.at,
    claimId: row.claim_id,
    holder: row.holder,
    holderSession: row.holder_session,
    fence: row.fence,
    spaceId: row.space_id,
    key: row.key,
    scopeId: row.scope_id,
    taskId: row.task_id,
    spool: row.spool,
    queue: row.queue,
    reason: row.reason,
  };
}

/** The activity views over SQL: the same answers as the engine's `Activity`, from the tables. */
export function sqlActivity(unit: UnitContext): ActivityOperations {
  const { tx } = unit;
  return {
    async listSpaces(params) {
      const { after, limit } = pageQuery(params);
      const { accountId } = params.credential;
      const now = await clockNow(tx);
      await recordDue(tx, accountId, now);
      const { rows } = await tx.query<{ space_id: string; held: number; waiting: number; lost: number }>(
        `WITH live AS (
           SELECT space_id, count(*) FILTER (WHERE status = 'held') AS held, count(*) FILTER (WHERE status = 'queued') AS waiting
             FROM leasehold.leases WHERE account_id = $1 AND kind = 'space' AND status IN ('held', 'queued') GROUP BY space_id
         ), ev AS (
           SELECT space_id, count(*) FILTER (WHERE type IN ('expired', 'lost')) AS lost
             FROM leasehold.lease_events WHERE account_id = $1 AND kind = 'space' AND at > $2 GROUP BY space_id
         )
         SELECT space_id, coalesce(held, 0)::int AS held, coalesce(waiting, 0)::int AS waiting, coalesce(lost, 0)::int AS lost
           FROM live FULL JOIN ev USING (space_id)
          WHERE ($3::text[] IS NULL OR space_id = ANY($3)) AND ($4::text IS NULL OR space_id COLLATE "C" > $4)
          ORDER BY space_id COLLATE "C" LIMIT $5`,
        [accountId, now - TOMBSTONE_MS, spacesParam(params.credential), after ?? null, limit + 1],
      );
      const data = rows.slice(0, limit).map((row) => ({ object: 'space' as const, spaceId: row.space_id, held: row.held, waiting: row.waiting, lost: row.lost }));
      const last = data[data.length - 1];
      return { object: 'list', data, nextCursor: rows.length > limit && last !== undefined ? encodeCursor(last.spaceId) : null };
    },

    async spaceActivity(params) {
      const spaceId = requireUuid(params.spaceId, 'spaceId');
      if (!canSeeSpace(params.credential, spaceId)) throw new EngineError('space_not_found', 'No such space.', 'spaceId');
      const page = await sqlSpaceClaims(unit).list({ ...params, spaceId });
      const { accountId } = params.credential;
      const now = await clockNow(tx);
      const { rows: waiting } = await tx.query<{ claim_id: string; key: string; scope_id: string; holder: string; holder_session: string; position: number; expires_at: number }>(
        `SELECT l.claim_id, l.key, l.scope_id, l.holder, l.holder_session, l.expires_at,
                row_number() OVER (PARTITION BY l.key_id ORDER BY l.lease_id)::int AS position
           FROM leasehold.leases l JOIN leasehold.space_keys k ON k.key_id = l.key_id
          WHERE k.account_id = $1 AND k.space_id = $2 AND k.key = ANY($3::text[])
            AND l.kind = 'space' AND l.status = 'queued' AND l.expires_at > $4
          ORDER BY k.sort_key, l.lease_id`,
        [accountId, spaceId, page.data.map((claim) => claim.key), now],
      );
      const waiters = waiting.map((row): Waiter => ({
        object: 'waiter',
        claimId: row.claim_id,
        key: row.key,
        scopeId: row.scope_id,
        holder: row.holder,
        holderSession: row.holder_session,
        position: row.position,
        expiresAt: row.expires_at,
      }));
      const { rows: lostRows } = await tx.query<EventRow>(
        `SELECT ${EVENT_COLUMNS} FROM leasehold.lease_events
          WHERE account_id = $1 AND kind = 'space' AND space_id = $2 AND type IN ('expired', 'lost') AND at > $3
          ORDER BY event_id DESC LIMIT ${MAX_LOST_SHOWN}`,
        [accountId, spaceId, now - TOMBSTONE_MS],
      );
      const lost = lostRows.map((row): LostClaim => ({
        object: 'lost_claim',
        claimId: row.claim_id,
        key: row.key ?? '',
        scopeId: row.scope_id ?? '',
        holder: row.holder ?? '',
        holderSession: row.holder_session ?? '',
        fence: row.fence,
        reason: row.reason ?? 'expired',
        lostAt: row.at,
      }));
      return { object: 'space_activity', spaceId, claims: page.data, waiters, lost, nextCursor: page.nextCursor };
    },

    async queueStats(params) {
      const { after, limit } = pageQuery(params);
      const { accountId } = params.credential;
      const now = await clockNow(tx);
      const [afterSpool, afterQueue] = after === undefined ? [null, null] : after.split('\n');
      const { rows } = await tx.query<{
        queue_id: number; spool: string; name: string; lease_timeout_seconds: number | null;
        depth: number; leased: number; delayed: number; stored: number; buckets: [number, number, number, number][] | null;
      }>(
        `SELECT q.queue_id, q.spool, q.name, q.lease_timeout_seconds,
                (SELECT count(*)::int FROM leasehold.messages m WHERE m.queue_id = q.queue_id
                   AND ((m.lease_id IS NULL AND m.visible_at <= $2) OR (m.lease_id IS NOT NULL AND m.lease_expires_at <= $2))) AS depth,
                (SELECT count(*)::int FROM leasehold.messages m WHERE m.queue_id = q.queue_id AND m.lease_id IS NOT NULL
                   AND (m.lease_expires_at IS NULL OR m.lease_expires_at > $2)) AS leased,
                (SELECT count(*)::int FROM leasehold.messages m WHERE m.queue_id = q.queue_id AND m.lease_id IS NULL AND m.visible_at > $2) AS delayed,
                (SELECT count(*)::int FROM leasehold.messages m WHERE m.queue_id = q.queue_id) AS stored,
                (SELECT json_agg(json_build_array(b.bucket, b.sent, b.removed, b.discarded)) FROM (
                   SELECT s.bucket, sum(s.sent)::int AS sent, sum(s.removed)::int AS removed, sum(s.discarded)::int AS discarded
                     FROM (SELECT bucket, sent, removed, discarded FROM leasehold.queue_tallies WHERE queue_id = q.queue_id AND bucket > $3
                           UNION ALL
                           SELECT bucket, sent, removed, discarded FROM leasehold.queue_samples WHERE queue_id = q.queue_id AND bucket > $3) s
                    GROUP BY s.bucket) b) AS buckets
           FROM leasehold.queues q
          WHERE q.account_id = $1 AND ($4::text IS NULL OR (q.spool COLLATE "C", q.name COLLATE "C") > ($4, $5))
          ORDER BY q.spool COLLATE "C", q.name COLLATE "C" LIMIT $6`,
        [accountId, now, bucketOf(now) - SAMPLE_COUNT, afterSpool ?? null, afterQueue ?? null, limit + 1],
      );
      const data = rows.slice(0, limit).map((row) => {
        const counts = new Map<number, SampleCounts>();
        for (const [bucket, sent, removed, discarded] of row.buckets ?? []) counts.set(Number(bucket), { sent, removed, discarded });
        const { samples, discarded } = samplesOf(counts, row.stored, now);
        return {
          object: 'queue_stats' as const,
          spool: row.spool,
          queue: row.name,
          leaseTimeoutSeconds: row.lease_timeout_seconds,
          depth: row.depth,
          leased: row.leased,
          delayed: row.delayed,
          deadLettered: discarded,
          samples,
        };
      });
      const last = data[data.length - 1];
      return { object: 'list', data, nextCursor: rows.length > limit && last !== undefined ? encodeCursor(queueSortKey(last.spool, last.queue)) : null };
    },

    queueActivity: (params) => sqlQueueActivity(tx, params),

    async events(params) {
      const { after, limit } = eventQuery(params);
      const { credential } = params;
      const now = await clockNow(tx);
      await recordDue(tx, credential.accountId, now);
      // Committed events get their place first (0010): the feed is read by place, never by id.
      await tx.query('SELECT leasehold.place_events($1)', [credential.accountId]);
      // Read a little past the page: events the key may not read are skipped here, as the engine does.
      const data: LeaseEvent[] = [];
      let last = after;
      let hasMore = false;
      for (let from = after; !hasMore; ) {
        const { rows } = await tx.query<EventRow>(
          `SELECT ${EVENT_COLUMNS} FROM leasehold.lease_events
            WHERE account_id = $1 AND feed_position > $2 AND at > $3 ORDER BY feed_position LIMIT 200`,
          [credential.accountId, from, now - TOMBSTONE_MS],
        );
        for (const row of rows) {
          from = row.feed_position;
          const event = eventOf(row);
          if (!mayRead(credential, event)) continue;
          if (data.length === limit) {
            hasMore = true;
            break;
          }
          data.push(event);
          last = row.feed_position;
        }
        if (rows.length < 200) break;
      }
      return { object: 'list', data, nextCursor: eventId(last), hasMore };
    },

    async sessions(params) {
      const { after, limit } = pageQuery(params);
      const { accountId } = params.credential;
      const now = await clockNow(tx);
      await recordDue(tx, accountId, now);
      const { rows } = await tx.query<{ holder_session: string; heartbeats: number; last_at: number | null; leases: number }>(
        `WITH beats AS (
           SELECT holder_session, coalesce(sum(beats) FILTER (WHERE bucket >= $3), 0)::int AS heartbeats, max(last_at) AS last_at
             FROM leasehold.session_heartbeats WHERE account_id = $1 AND last_at > $2 GROUP BY holder_session
         ), live AS (
           SELECT holder_session, count(*)::int AS leases FROM leasehold.leases
            WHERE account_id = $1 AND status IN ('held', 'queued') AND holder_session IS NOT NULL
              AND (expires_at IS NULL OR expires_at > $6) GROUP BY holder_session
         )
         SELECT holder_session, coalesce(heartbeats, 0) AS heartbeats, last_at, coalesce(leases, 0) AS leases
           FROM beats FULL JOIN live USING (holder_session)
          WHERE ($4::text IS NULL OR holder_session COLLATE "C" > $4)
          ORDER BY holder_session COLLATE "C" LIMIT $5`,
        [accountId, now - TOMBSTONE_MS, firstRateBucket(now), after ?? null, limit + 1, now],
      );
      const data = rows.slice(0, limit).map((row) => ({
        object: 'session' as const,
        holderSession: row.holder_session,
        heartbeats: row.heartbeats,
        lastHeartbeatAt: row.last_at,
        leases: row.leases,
      }));
      const last = data[data.length - 1];
      return { object: 'list', data, nextCursor: rows.length > limit && last !== undefined ? encodeCursor(last.holderSession) : null };
    },
  };
}
