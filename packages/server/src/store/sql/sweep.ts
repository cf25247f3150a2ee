import type { SqlSession } from './driver.js';
import { TOMBSTONE_MS, clockNow } from './sql-support.js';

/**
 * One bounded pass of the background sweep at the database's now, each step at most `limit`
 * rows, skipping rows another process holds (`SKIP LOCKED`), so several processes sweep side by
 * side: hand keys over whose holder or waiters fell due (FIFO), forget tombstones 10 minutes
 * after they ended, free keys and cancelled runs whose time is up, lease events, queue samples and
 * heartbeat counts older than 10 minutes, and expired idempotency records. Answers how many rows it changed; a pass with nothing due is a handful of index probes.
 */
export async function sweepOnce(tx: SqlSession, limit: number): Promise<{ changed: number; more: boolean }> {
  const now = await clockNow(tx);
  const counts = [
    // Hand-over never waits for another transaction: the due keys are locked first, then their
    // live leases, each skipping rows held elsewhere, and only keys with every lease in hand are
    // settled (a key row held here admits no new lease). A key a renew or a heartbeat is
    // changing waits for the next pass or the next touch. (Locked in materialized CTEs: a
    // function in the select list of a locking query runs below its row locks, and would wait.)
    await tx.query(
      `WITH due AS MATERIALIZED (
         SELECT k.key_id FROM leasehold.space_keys k
          WHERE k.key_id IN (SELECT key_id FROM leasehold.leases
                              WHERE status IN ('held', 'queued') AND due_at <= $1 AND expires_at <= $1 AND kind = 'space'
                              ORDER BY due_at LIMIT $2)
          ORDER BY k.key_id FOR UPDATE SKIP LOCKED
       ), live AS MATERIALIZED (
         SELECT l.lease_id FROM leasehold.leases l
          WHERE l.key_id IN (SELECT key_id FROM due) AND l.kind = 'space' AND l.status IN ('held', 'queued')
          ORDER BY l.lease_id FOR UPDATE SKIP LOCKED
       )
       SELECT leasehold.settle_key(d.key_id, $1) FROM due d
        WHERE NOT EXISTS (SELECT 1 FROM leasehold.leases l
                           WHERE l.key_id = d.key_id AND l.kind = 'space' AND l.status IN ('held', 'queued')
                             AND l.lease_id NOT IN (SELECT lease_id FROM live))
        ORDER BY d.key_id`,
      [now, limit],
    ),
    // Task claims are forgotten with their outcome written onto the task (`forgetTaskLeases`).
    await forgetTaskLeases(tx, now, limit),
    await tx.query(
      `DELETE FROM leasehold.leases WHERE lease_id IN (
         SELECT lease_id FROM leasehold.leases WHERE status IN ('lost', 'released') AND ended_at <= $1 AND kind <> 'task'
          ORDER BY ended_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [now - TOMBSTONE_MS, limit],
    ),
    await tx.query(
      `DELETE FROM leasehold.leases WHERE lease_id IN (
         SELECT lease_id FROM leasehold.leases
          WHERE status IN ('held', 'queued') AND due_at <= $1 AND expires_at <= $1::bigint - ${TOMBSTONE_MS} AND kind = 'spool'
          ORDER BY due_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [now, limit],
    ),
    await moveDueOn(tx, now, limit),
    await tx.query(
      `DELETE FROM leasehold.space_keys WHERE key_id IN (
         SELECT key_id FROM leasehold.space_keys k
          WHERE forget_at <= $1 AND holder_lease IS NULL
            AND NOT EXISTS (SELECT 1 FROM leasehold.leases w WHERE w.key_id = k.key_id AND w.kind = 'space' AND w.status = 'queued')
          ORDER BY forget_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [now, limit],
    ),
    await tx.query(
      `DELETE FROM leasehold.cancelled_scopes WHERE (account_id, space_id, scope_id) IN (
         SELECT account_id, space_id, scope_id FROM leasehold.cancelled_scopes WHERE forget_at <= $1
          ORDER BY forget_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [now, limit],
    ),
    await tx.query(
      `DELETE FROM leasehold.lease_events WHERE event_id IN (
         SELECT event_id FROM leasehold.lease_events WHERE recorded_at <= $1
          ORDER BY recorded_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [now - TOMBSTONE_MS, limit],
    ),
    await tx.query(
      `DELETE FROM leasehold.queue_samples WHERE (queue_id, bucket) IN (
         SELECT queue_id, bucket FROM leasehold.queue_samples WHERE bucket <= $1
          ORDER BY bucket LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [Math.floor((now - TOMBSTONE_MS) / 10_000), limit],
    ),
    await tx.query(
      `DELETE FROM leasehold.queue_tallies WHERE (queue_id, bucket, slot) IN (
         SELECT queue_id, bucket, slot FROM leasehold.queue_tallies WHERE bucket <= $1
          ORDER BY bucket LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [Math.floor((now - TOMBSTONE_MS) / 10_000), limit],
    ),
    await tx.query(
      `DELETE FROM leasehold.session_heartbeats WHERE (account_id, holder_session, bucket) IN (
         SELECT account_id, holder_session, bucket FROM leasehold.session_heartbeats WHERE last_at <= $1
          ORDER BY bucket LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [now - TOMBSTONE_MS, limit],
    ),
    await tx.query(
      `DELETE FROM leasehold.idempotency_records WHERE record_hash IN (
         SELECT record_hash FROM leasehold.idempotency_records WHERE expires_at <= $1
          ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [now, limit],
    ),
  ].map((result) => result.rowCount);
  return { changed: counts.reduce((a, b) => a + b, 0), more: counts.some((n) => n >= limit) };
}

/**
 * Forget task leases 10 minutes after they ended (before `now`), at most `limit` of each sort, and
 * write how each one ended onto its task when it is the task's last claim and no write recorded
 * its end (an expiry: `expired` at its `expires_at`; another loss: `revoked`), in the same
 * statement, so a task shows its last claim's outcome for good (docs/storage.md). The task rows
 * are updated after the lease rows are locked; no task write waits on an ended lease row.
 */
function forgetTaskLeases(tx: SqlSession, now: number, limit: number): Promise<{ rowCount: number }> {
  return tx.query(
    `WITH due AS MATERIALIZED (
       SELECT lease_id FROM leasehold.leases WHERE lease_id IN (
         (SELECT lease_id FROM leasehold.leases WHERE status IN ('lost', 'released') AND ended_at <= $1::bigint - ${TOMBSTONE_MS} AND kind = 'task'
           ORDER BY ended_at LIMIT $2)
         UNION ALL
         (SELECT lease_id FROM leasehold.leases
           WHERE status IN ('held', 'queued') AND due_at <= $1 AND expires_at <= $1::bigint - ${TOMBSTONE_MS} AND kind = 'task'
           ORDER BY due_at LIMIT $2))
       FOR UPDATE SKIP LOCKED
     ), gone AS (
       DELETE FROM leasehold.leases l USING due WHERE l.lease_id = due.lease_id
       RETURNING l.account_id, l.task_id, l.claim_id, l.status, l.lost_reason, l.expires_at, l.ended_at
     ), recorded AS (
       UPDATE leasehold.tasks t
          SET last_claim_outcome = CASE WHEN g.status = 'held' OR g.lost_reason = 'expired' THEN 'expired'
                                        WHEN g.status = 'lost' THEN 'revoked' ELSE 'released' END,
              last_claim_ended_at = CASE WHEN g.status = 'held' THEN g.expires_at ELSE g.ended_at END
         FROM gone g
        WHERE t.account_id = g.account_id AND t.task_id = g.task_id AND t.last_claim_id = g.claim_id AND t.last_claim_outcome IS NULL
     )
     SELECT 1 FROM gone`,
    [now, limit],
  );
}

/**
 * Move a passed `due_at` on to when the sweep next has work with the lease (0013): its expiry
 * when it was renewed since (or none when it no longer expires), or, for a task or spool lease
 * that expired, the moment its row is forgotten. What is due now (a space lease to settle, a row
 * to forget) is left to the steps before, which ran first; a row held elsewhere waits for the
 * next pass. A lease renewed continuously is moved on once per lease term, and every renewal in
 * between is a HOT update.
 */
function moveDueOn(tx: SqlSession, now: number, limit: number): Promise<{ rowCount: number }> {
  return tx.query(
    `UPDATE leasehold.leases l
        SET due_at = CASE WHEN l.expires_at > $1 THEN l.expires_at ELSE l.expires_at + ${TOMBSTONE_MS} END
      WHERE l.lease_id IN (
        SELECT lease_id FROM leasehold.leases
         WHERE status IN ('held', 'queued') AND due_at <= $1
           AND (expires_at IS NULL OR expires_at > $1 OR (kind <> 'space' AND expires_at > $1::bigint - ${TOMBSTONE_MS}))
         ORDER BY due_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
    [now, limit],
  );
}
