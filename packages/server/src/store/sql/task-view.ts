import { EngineError, toUtc, type Details, type Task, type TaskNote, type TaskStatus } from '../../engine/index.js';
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

/** The wire task (the engine's `taskView`, field for field) with its live claim and notes. */
export async function taskView(tx: SqlSession, accountId: string, taskId: number): Promise<Task> {
  const { rows } = await tx.query<
    Omit<TaskRow, 'now'> & {
      notes: Array<{ id: string; text: string; created_at: number; claim_id: string | null }> | null;
      claim: { claim_id: string; fence: number; expires_at: number; holder_session: string | null; details: string | null } | null;
    }
  >(
    `SELECT t.task_id, t.title, t.description, t.status, t.version, t.result, t.created_at, t.updated_at, t.completed_at,
            (SELECT json_agg(json_build_object('id', n.note_id, 'text', n.body, 'created_at', n.created_at, 'claim_id', n.claim_id)
                             ORDER BY n.note_seq)
               FROM leasehold.task_notes n WHERE n.account_id = t.account_id AND n.task_id = t.task_id) AS notes,
            (SELECT json_build_object('claim_id', l.claim_id, 'fence', l.fence, 'expires_at', l.expires_at,
                                      'holder_session', l.holder_session, 'details', l.details)
               FROM leasehold.leases l
              WHERE l.kind = 'task' AND l.account_id = t.account_id AND l.task_id = t.task_id
                AND l.status = 'held' AND l.expires_at > leasehold.now_ms() LIMIT 1) AS claim
       FROM leasehold.tasks t WHERE t.account_id = $1 AND t.task_id = $2`,
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
