import { EngineError, leasedPageQuery, queueActivityPage, type Caller, type QueueActivity } from '../../engine/index.js';
import { requireIdentName } from '../../engine/validation.js';
import type { SqlSession } from './driver.js';
import { spoolNotFound } from './spool-views.js';

interface LeasedRow {
  message_id: number;
  public_id: string;
  claim_id: string;
  holder_session: string | null;
  fence: number;
  delivery_count: number;
  acquired_at: number;
  lease_expires_at: number | null;
}

/**
 * One page of a queue's leased messages over SQL, as the engine's `Activity.queueActivity`
 * answers it: a message is leased while it carries a held lease whose expiry (copied on the
 * message) has not passed — the same rule the `leased` count of the queue views applies. The
 * page is in send order (`message_id`), read `limit + 1` rows at a time.
 */
export async function sqlQueueActivity(
  tx: SqlSession,
  params: { credential: Caller; spool: string; queue: string; limit?: number | undefined; cursor?: string | undefined },
): Promise<QueueActivity> {
  const { afterOrder, limit } = leasedPageQuery(params);
  const spool = requireIdentName(params.spool, 'spool');
  const found = await tx.query<{ now: number; queue_id: number | null }>(
    `SELECT c.now, q.queue_id
       FROM (SELECT leasehold.now_ms() AS now) c
       JOIN leasehold.spools s ON s.account_id = $1 AND s.name = $2
       LEFT JOIN leasehold.queues q ON q.account_id = s.account_id AND q.spool = s.name AND q.name = $3`,
    [params.credential.accountId, spool, typeof params.queue === 'string' ? params.queue : ''],
  );
  const at = found.rows[0];
  if (at === undefined) throw spoolNotFound();
  const queue = requireIdentName(params.queue, 'queue');
  if (at.queue_id === null) throw new EngineError('queue_not_found', 'No such queue.', 'queue');
  const { rows } = await tx.query<LeasedRow>(
    `SELECT m.message_id, m.public_id, l.claim_id, l.holder_session, l.fence, m.delivery_count, l.acquired_at, m.lease_expires_at
       FROM leasehold.messages m JOIN leasehold.leases l ON l.lease_id = m.lease_id
      WHERE m.queue_id = $1 AND m.lease_id IS NOT NULL AND l.status = 'held'
        AND (m.lease_expires_at IS NULL OR m.lease_expires_at > $2)
        AND ($3::bigint IS NULL OR m.message_id > $3)
      ORDER BY m.message_id LIMIT $4`,
    [at.queue_id, at.now, afterOrder ?? null, limit + 1],
  );
  const leased = rows.map((row) => ({
    sendOrder: row.message_id,
    view: {
      object: 'leased_message' as const,
      messageId: row.public_id,
      claimId: row.claim_id,
      holderSession: row.holder_session,
      fence: row.fence,
      deliveryCount: row.delivery_count,
      acquiredAt: row.acquired_at,
      expiresAt: row.lease_expires_at,
    },
  }));
  return queueActivityPage(spool, queue, leased, afterOrder, limit);
}
