import {
  EngineError,
  leaseOutcome,
  taskLifecycle,
  toUtc,
  type Details,
  type LastClaimFacts,
  type Task,
  type TaskClaimOutcome,
  type TaskNote,
  type TaskStatus,
} from '../../engine/index.js';
import type { SqlSession } from './driver.js';
import { parseJson } from './sql-support.js';

/** A task's row as the SQL store reads it (`now` is the database clock of the reading statement). */
export interface TaskRow {
  task_id: number;
  title: string;
  description: string;
  status: TaskStatus;
  version: number;
  result: string;
  created_at: number;
  updated_at: number;
  completed_at: number | null;
  now: number;
}

/** The lifecycle columns of a task row (0012), and its last claim's lease row while it is remembered. */
export interface TaskLifecycleRow {
  attempts: number;
  last_claim_id: string | null;
  last_claim_session: string | null;
  last_claim_started_at: number | null;
  last_claim_outcome: Exclude<TaskClaimOutcome, 'held'> | null;
  last_claim_ended_at: number | null;
  last_lease: { status: string; lost_reason: string | null; expires_at: number | null; ended_at: number | null } | null;
  now: number;
}

/** The select-list items `lastClaimFacts` reads (the task is `t`, the statement's clock `c.now`). */
export const TASK_LIFECYCLE_COLUMNS = `t.attempts, t.last_claim_id, t.last_claim_session, t.last_claim_started_at,
            t.last_claim_outcome, t.last_claim_ended_at, c.now,
            (SELECT json_build_object('status', ll.status, 'lost_reason', ll.lost_reason, 'expires_at', ll.expires_at,
                                      'ended_at', ll.ended_at)
               FROM leasehold.leases ll WHERE ll.claim_id = t.last_claim_id) AS last_lease`;

/**
 * The engine's `lastClaimFacts` in SQL: the end a write recorded, else the lease row's state at
 * the statement's `now` (the sweep records an expiry before it forgets the lease row).
 */
export function lastClaimFacts(row: TaskLifecycleRow): LastClaimFacts | null {
  if (row.last_claim_id === null) return null;
  const lease = row.last_lease;
  const ended =
    row.last_claim_outcome !== null ? { outcome: row.last_claim_outcome, endedAt: row.last_claim_ended_at }
    : lease !== null
      ? leaseOutcome({ status: lease.status, lostReason: lease.lost_reason, expiresAt: lease.expires_at, endedAt: lease.ended_at }, row.now)
      : { outcome: 'expired' as const, endedAt: null };
  return { claimId: row.last_claim_id, holderSession: row.last_claim_session, startedAt: row.last_claim_started_at ?? 0, ...ended };
}

/** The wire task (the engine's `taskView`, field for field) with its live claim and notes. */
export async function taskView(tx: SqlSession, accountId: string, taskId: number): Promise<Task> {
  const { rows } = await tx.query<
    Omit<TaskRow, 'now'> & TaskLifecycleRow & {
      notes: Array<{ id: string; text: string; created_at: number; claim_id: string | null }> | null;
      claim: { claim_id: string; fence: number; expires_at: number; holder_session: string | null; details: string | null } | null;
    }
  >(
    `SELECT t.task_id, t.title, t.description, t.status, t.version, t.result, t.created_at, t.updated_at, t.completed_at,
            ${TASK_LIFECYCLE_COLUMNS},
            (SELECT json_agg(json_build_object('id', n.note_id, 'text', n.body, 'created_at', n.created_at, 'claim_id', n.claim_id)
                             ORDER BY n.note_seq)
               FROM leasehold.task_notes n WHERE n.account_id = t.account_id AND n.task_id = t.task_id) AS notes,
            (SELECT json_build_object('claim_id', l.claim_id, 'fence', l.fence, 'expires_at', l.expires_at,
                                      'holder_session', l.holder_session, 'details', l.details)
               FROM leasehold.leases l
              WHERE l.kind = 'task' AND l.account_id = t.account_id AND l.task_id = t.task_id
                AND l.status = 'held' AND l.expires_at > c.now LIMIT 1) AS claim
       FROM (SELECT leasehold.now_ms() AS now) c CROSS JOIN leasehold.tasks t WHERE t.account_id = $1 AND t.task_id = $2`,
    [accountId, taskId],
  );
  const row = rows[0];
  if (row === undefined) throw taskNotFound();
  const notes: TaskNote[] = (row.notes ?? []).map((n) => ({
    object: 'task_note',
    id: n.id,
    taskId: row.task_id,
    text: n.text,
    createdUtc: toUtc(n.created_at),
    claimId: n.claim_id,
  }));
  const claim = row.claim;
  return {
    object: 'task',
    id: row.task_id,
    title: row.title,
    description: row.description,
    status: row.status,
    version: row.version,
    claim:
      claim === null
        ? null
        : {
            claimId: claim.claim_id,
            fence: claim.fence,
            expiresUtc: toUtc(claim.expires_at),
            holderSession: claim.holder_session,
            details: parseJson<Details>(claim.details),
          },
    ...taskLifecycle(row.status, row.attempts, lastClaimFacts(row)),
    notes,
    result: parseJson(row.result),
    createdUtc: toUtc(row.created_at),
    updatedUtc: toUtc(row.updated_at),
    completedUtc: row.completed_at === null ? null : toUtc(row.completed_at),
  };
}

/** The answer for a task id the account does not have. */
export function taskNotFound(): EngineError {
  return new EngineError('task_not_found', 'No such task.', 'taskId');
}
