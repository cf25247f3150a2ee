import type { TaskClaimOutcome } from '../../engine/index.js';
import type { SqlSession } from './driver.js';

/**
 * The task lifecycle's writes in SQL (the engine's `startAttempt` / `endAttempt`), made under
 * the task's row lock: they change the lifecycle columns only, never the version (the ETag).
 */

/** A claim was granted at `now`: one more attempt, and it is the task's last claim. */
export async function startAttempt(
  tx: SqlSession,
  task: { accountId: string; taskId: number },
  claim: { claimId: string; holderSession: string | null; now: number },
): Promise<void> {
  await tx.query(
    `UPDATE leasehold.tasks SET attempts = attempts + 1, last_claim_id = $3, last_claim_session = $4, last_claim_started_at = $5,
            last_claim_outcome = NULL, last_claim_ended_at = NULL
      WHERE account_id = $1 AND task_id = $2`,
    [task.accountId, task.taskId, claim.claimId, claim.holderSession, claim.now],
  );
}

/** A write ended the task's last claim (`claimId`) at `now`, as `outcome`. */
export async function endAttempt(
  tx: SqlSession,
  task: { accountId: string; taskId: number },
  claimId: string,
  outcome: Exclude<TaskClaimOutcome, 'held' | 'expired'>,
  now: number,
): Promise<void> {
  await tx.query(
    `UPDATE leasehold.tasks SET last_claim_outcome = $4, last_claim_ended_at = $5
      WHERE account_id = $1 AND task_id = $2 AND last_claim_id = $3`,
    [task.accountId, task.taskId, claimId, outcome, now],
  );
}

/** An operator took the live task lease away at `now`: lost (`revoked`), reported by the next heartbeat. */
export async function revokeTaskLease(tx: SqlSession, leaseId: number, now: number): Promise<void> {
  await tx.query("UPDATE leasehold.leases SET status = 'lost', lost_reason = 'revoked', ended_at = $2 WHERE lease_id = $1", [leaseId, now]);
}
