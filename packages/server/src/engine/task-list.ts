import { EngineError } from './errors.js';
import type { SortedMap } from './sorted-map.js';
import { taskView, type Task, type TaskRecord, type TaskStatus } from './task-record.js';

/** One page of tasks (wire `TaskList`). */
export interface TaskList {
  object: 'list';
  data: Task[];
  nextCursor: string | null;
}

/** A page ends early once it holds about this many bytes of JSON (after at least one task). */
export const TASK_PAGE_BYTES = 4 * 1024 * 1024;

/** The opaque cursor for "after task `id`". */
export function encodeTaskCursor(id: number): string {
  return Buffer.from(`task:${id}`, 'utf8').toString('base64url');
}

/** The task id a cursor stands for, else `invalid_request` with `param: "cursor"`. */
export function decodeTaskCursor(cursor: string): number {
  const match = /^task:([1-9][0-9]{0,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  const id = match ? Number(match[1]) : Number.NaN;
  if (!Number.isSafeInteger(id) || encodeTaskCursor(id) !== cursor) {
    throw new EngineError('invalid_request', 'cursor is not one this API returned.', 'cursor');
  }
  return id;
}

/**
 * One page of tasks after `after` (0: from the start) in id order: from `byStatus` when a status
 * is asked for, else by id from `tasks` (ids run 1, 2, 3, … and tasks are never deleted, so the
 * walk costs what the page holds). The page stops at `limit` tasks or about `TASK_PAGE_BYTES`.
 */
export function pageOfTasks(
  tasks: ReadonlyMap<number, TaskRecord>,
  nextId: number,
  byStatus: SortedMap<number, TaskRecord> | undefined,
  query: { status?: TaskStatus | undefined; after: number; limit: number },
): TaskList {
  const data: Task[] = [];
  let bytes = 0;
  let last = 0;
  let more = false;
  const take = (task: TaskRecord): boolean => {
    if (data.length === query.limit || (data.length > 0 && bytes >= TASK_PAGE_BYTES)) {
      more = true;
      return false;
    }
    const view = taskView(task);
    bytes += JSON.stringify(view).length;
    data.push(view);
    last = task.id;
    return true;
  };
  if (query.status !== undefined) {
    if (byStatus !== undefined) {
      for (const [id, task] of byStatus.entries(query.after + 1)) {
        if (id <= query.after) continue;
        if (!take(task)) break;
      }
    }
  } else {
    for (let id = query.after + 1; id < nextId; id++) {
      const task = tasks.get(id);
      if (task !== undefined && !take(task)) break;
    }
  }
  return { object: 'list', data, nextCursor: more ? encodeTaskCursor(last) : null };
}
