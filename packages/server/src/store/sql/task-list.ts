import { TASK_RETRY_BACKOFF_INITIAL_MS, TASK_RETRY_BACKOFF_MAX_MS, type Caller, type TaskList } from '../../engine/index.js';
import { TaskPage, taskListQuery, type TaskListParams } from '../../engine/task-list.js';
import type { SqlSession } from './driver.js';
import { taskView } from './task-view.js';

/**
 * The engine's `isClaimable` (with `availableAt` and `retryBackoffMs`) as a condition on task
 * `t` at `c.now`: `Todo` or `InProgress`, no live claim, and past the end of an expired or
 * released last claim plus `min(initial × 2^(attempts−1), max)` (`$5`, `$6`). The end is the
 * one a write recorded, else the remembered lease's (an expiry: its `expires_at`).
 */
const CLAIMABLE = `t.status IN ('Todo', 'InProgress')
        AND NOT EXISTS (SELECT 1 FROM leasehold.leases l
                         WHERE l.kind = 'task' AND l.account_id = t.account_id AND l.task_id = t.task_id
                           AND l.status = 'held' AND l.expires_at > c.now)
        AND coalesce(
              CASE WHEN t.last_claim_id IS NULL OR t.attempts <= 0 THEN NULL
                   WHEN t.last_claim_outcome IS NOT NULL THEN
                     CASE WHEN t.last_claim_outcome IN ('expired', 'released') THEN t.last_claim_ended_at END
                   ELSE (SELECT CASE WHEN ll.status = 'held' THEN ll.expires_at
                                     WHEN ll.status = 'lost' AND ll.lost_reason = 'expired' THEN ll.ended_at
                                     WHEN ll.status = 'released' THEN ll.ended_at END
                           FROM leasehold.leases ll WHERE ll.claim_id = t.last_claim_id)
              END + least($5::bigint * power(2, least(t.attempts - 1, 30))::bigint, $6::bigint),
              0) <= c.now`;

/**
 * `GET /v1/tasks` in SQL, the engine's page rule (`taskListQuery`, `TaskPage`): one keyset
 * statement over `tasks_by_status` / the primary key (`task_id > after`, in id order, one more
 * row than the page holds; `claimable=true` adds the `CLAIMABLE` condition), then each task's view.
 */
export async function listTasks(tx: SqlSession, params: TaskListParams & { credential: Caller }): Promise<TaskList> {
  const query = taskListQuery(params);
  const { rows } = await tx.query<{ task_id: number }>(
    query.claimable
      ? `SELECT t.task_id FROM (SELECT leasehold.now_ms() AS now) c CROSS JOIN leasehold.tasks t
          WHERE t.account_id = $1 AND t.task_id > $2 AND ($3::text IS NULL OR t.status = $3) AND ${CLAIMABLE}
          ORDER BY t.task_id LIMIT $4`
      : `SELECT task_id FROM leasehold.tasks
          WHERE account_id = $1 AND task_id > $2 AND ($3::text IS NULL OR status = $3)
          ORDER BY task_id LIMIT $4`,
    query.claimable
      ? [params.credential.accountId, query.after, query.status ?? null, query.limit + 1, TASK_RETRY_BACKOFF_INITIAL_MS, TASK_RETRY_BACKOFF_MAX_MS]
      : [params.credential.accountId, query.after, query.status ?? null, query.limit + 1],
  );
  const page = new TaskPage(query.limit);
  for (const row of rows) {
    if (!page.hasRoom) {
      page.markMore();
      break;
    }
    page.take(await taskView(tx, params.credential.accountId, row.task_id));
  }
  return page.list();
}
