import type { Message } from '../../engine/index.js';
import type { SqlSession } from './driver.js';
import { MESSAGE_COLUMNS, messageView, type MessageRow } from './spool-views.js';
import { one } from './sql-support.js';

/**
 * Discard a message by handle at `now` (the engine's `discardIn`): a live lease becomes a lost
 * tombstone (`discarded`, reported by the next heartbeat), an expired one is lost as `expired`.
 */
export async function discardIn(
  tx: SqlSession,
  accountId: string,
  spool: string,
  handle: string,
  now: number,
): Promise<Message | undefined> {
  const { rows } = await tx.query<MessageRow & { lease_id: number | null; live: boolean }>(
    `SELECT ${MESSAGE_COLUMNS}, m.lease_id,
            (l.lease_id IS NOT NULL AND (l.expires_at IS NULL OR l.expires_at > $4)) AS live,
            l.claim_id, l.fence
       FROM leasehold.messages m JOIN leasehold.queues q ON q.queue_id = m.queue_id
       LEFT JOIN leasehold.leases l ON l.lease_id = m.lease_id
      WHERE m.account_id = $1 AND m.spool = $2 AND m.handle = $3
      FOR UPDATE OF m`,
    [accountId, spool, handle, now],
  );
  const row = rows[0];
  if (row === undefined) return undefined;
  if (row.lease_id !== null) {
    // Before the message goes: the lease event's trigger names the message's spool and queue.
    await tx.query(
      `UPDATE leasehold.leases
          SET status = 'lost', lost_reason = CASE WHEN $2 THEN 'discarded' ELSE 'expired' END,
              ended_at = CASE WHEN $2 THEN $1 ELSE expires_at END
        WHERE lease_id = $3 AND status = 'held'`,
      [now, row.live, row.lease_id],
    );
  }
  // The queue's history counts the discard (the delete's trigger counts the removal).
  await tx.query(
    `WITH gone AS (DELETE FROM leasehold.messages WHERE message_id = $1 RETURNING queue_id)
     INSERT INTO leasehold.queue_tallies AS s (queue_id, bucket, slot, discarded) SELECT queue_id, $2, leasehold.tally_slot(), 1 FROM gone
     ON CONFLICT (queue_id, bucket, slot) DO UPDATE SET discarded = s.discarded + 1`,
    [row.message_id, Math.floor(now / 10_000)],
  );
  return messageView(row.live ? row : { ...row, claim_id: null, fence: null });
}

/** Make every outstanding spool lease stale (a primary change) at `now`; answers how many. */
export async function primaryChangeAt(tx: SqlSession, now: number): Promise<number> {
  const { rows } = await tx.query<{ n: number }>(
    `WITH lost AS (
       UPDATE leasehold.leases SET status = 'lost', lost_reason = 'primary_change', ended_at = $1
        WHERE kind = 'spool' AND status = 'held' AND (expires_at IS NULL OR expires_at > $1)
       RETURNING lease_id, message_id
     ), back AS (
       UPDATE leasehold.messages m SET lease_id = NULL, lease_expires_at = NULL, visible_at = $1
         FROM lost WHERE m.message_id = lost.message_id AND m.lease_id = lost.lease_id
     )
     SELECT count(*)::int AS n FROM lost`,
    [now],
  );
  return one(rows).n;
}
