import { base64UrlOf, bytesOfBase64Url, stringOfCodes, utf8Bytes } from './bytes.js';
import { EngineError } from './errors.js';
import { requireInt } from './validation.js';
import type { SortedMap } from './sorted-map.js';
import { availableAt, isClaimable } from './task-lifecycle.js';
import { lastClaimFacts, taskView, type Task, type TaskRecord, type TaskStatus } from './task-record.js';

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
  return base64UrlOf(utf8Bytes(`task:${id}`));
}

/** The task id a cursor stands for, else `invalid_request` with `param: "cursor"`. */
export function decodeTaskCursor(cursor: string): number {
  const match = /^task:([1-9][0-9]{0,15})$/.exec(stringOfCodes(bytesOfBase64Url(cursor)));
  const id = match ? Number(match[1]) : Number.NaN;
  if (!Number.isSafeInteger(id) || encodeTaskCursor(id) !== cursor) {
    throw new EngineError('invalid_request', 'cursor is not one this API returned.', 'cursor');
  }
  return id;
}

const STATUSES: ReadonlySet<string> = new Set(['Todo', 'InProgress', 'Blocked', 'Done']);

/** The raw `GET /v1/tasks` parameters (`claimable` as the query string has it: `'true'`/`'false'`). */
export interface TaskListParams {
  status?: TaskStatus | undefined;
  claimable?: 'true' | 'false' | boolean | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

/** A validated list query: the status filter, the id the page starts after, the page size. */
export interface TaskListQuery {
  status: TaskStatus | undefined;
  /** Only tasks a worker may take now (`Todo` or stalled, unclaimed, past their backoff). */
  claimable: boolean;
  after: number;
  limit: number;
}

/**
 * Validates `GET /v1/tasks` parameters for every store (limit 1–100, default 50; a known status;
 * a cursor this API returned).
 */
export function taskListQuery(params: TaskListParams): TaskListQuery {
  const limit = requireInt(params.limit, 1, 100, 'limit', 50);
  if (params.status !== undefined && !STATUSES.has(params.status)) {
    throw new EngineError('invalid_request', 'status must be Todo, InProgress, Blocked or Done.', 'status');
  }
  const claimable = params.claimable === true || params.claimable === 'true';
  if (params.claimable !== undefined && !claimable && params.claimable !== false && params.claimable !== 'false') {
    throw new EngineError('invalid_request', 'claimable must be true or false.', 'claimable');
  }
  const after = params.cursor === undefined ? 0 : decodeTaskCursor(params.cursor);
  return { status: params.status, claimable, after, limit };
}

/**
 * Adds tasks to a page in id order until it holds `limit` tasks or about `TASK_PAGE_BYTES`:
 * `take` answers false (and marks the page as having more) once the page is full.
 */
export class TaskPage {
  readonly data: Task[] = [];
  #bytes = 0;
  #last = 0;
  #more = false;

  constructor(private readonly limit: number) {}

  /** True while the page has room; false once full (then `view` is not added). */
  get hasRoom(): boolean {
    return !(this.data.length === this.limit || (this.data.length > 0 && this.#bytes >= TASK_PAGE_BYTES));
  }

  /** Adds one task; false (the page has more) when it is full. */
  take(view: Task): boolean {
    if (!this.hasRoom) {
      this.#more = true;
      return false;
    }
    this.#bytes += JSON.stringify(view).length;
    this.data.push(view);
    this.#last = view.id;
    return true;
  }

  /** More tasks follow the page (it is full). */
  markMore(): void {
    this.#more = true;
  }

  /** The page, with the cursor of the task after its last one when more follow. */
  list(): TaskList {
    return { object: 'list', data: this.data, nextCursor: this.#more ? encodeTaskCursor(this.#last) : null };
  }
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
  const page = new TaskPage(query.limit);
  const take = (task: TaskRecord): boolean => page.take(taskView(task));
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
  return page.list();
}

/** True when a worker may take `task` at `now` (the claimable filter's rule, `isClaimable`). */
export function isTaskClaimable(task: TaskRecord, now: number): boolean {
  return isClaimable(task.status, task.claim !== null, availableAt(task.attempts, lastClaimFacts(task)), now);
}

/**
 * One page of claimable tasks after `after`, in id order: the `Todo` and `InProgress` indexes
 * (those of `statuses`) walked side by side, each task kept when `isTaskClaimable` at `now`.
 */
export function pageOfClaimableTasks(
  indexes: ReadonlyArray<SortedMap<number, TaskRecord>>,
  query: { after: number; limit: number },
  now: number,
): TaskList {
  const page = new TaskPage(query.limit);
  const walks = indexes.map((index) => index.entries(query.after + 1));
  const heads: Array<[number, TaskRecord] | undefined> = walks.map((walk) => nextAfter(walk, query.after));
  for (;;) {
    let pick = -1;
    heads.forEach((head, i) => {
      if (head !== undefined && (pick < 0 || head[0] < (heads[pick] as [number, TaskRecord])[0])) pick = i;
    });
    if (pick < 0) break;
    const [, task] = heads[pick] as [number, TaskRecord];
    heads[pick] = nextAfter(walks[pick] as Iterator<[number, TaskRecord]>, query.after);
    if (isTaskClaimable(task, now) && !page.take(taskView(task))) break;
  }
  return page.list();
}

function nextAfter(walk: Iterator<[number, TaskRecord]>, after: number): [number, TaskRecord] | undefined {
  for (let step = walk.next(); step.done !== true; step = walk.next()) if (step.value[0] > after) return step.value;
  return undefined;
}
