import type { Caller, TaskList, TaskStatus } from '../../engine/index.js';
import { TaskPage, taskListQuery } from '../../engine/task-list.js';
import type { SqlSession } from './driver.js';
import { taskView } from './task-view.js';

/**
 * `GET /v1/tasks` in SQL, the engine's page rule (`taskListQuery`, `TaskPage`): one keyset
 * statement over `tasks_by_status` / the primary key (`task_id > after`, in id order, one more
 * row than the page holds), then each task's view.
 */
export async function listTasks(
  tx: SqlSession,
  params: { credential: Caller; status?: TaskStatus | undefined; limit?: number | undefined; cursor?: string | undefined },
): Promise<TaskList> {
  const query = taskListQuery(params);
  const { rows } = await tx.query<{ task_id: number }>(
    `SELECT task_id FROM leasehold.tasks
      WHERE account_id = $1 AND task_id > $2 AND ($3::text IS NULL OR status = $3)
      ORDER BY task_id LIMIT $4`,
    [params.credential.accountId, query.after, query.status ?? null, query.limit + 1],
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
