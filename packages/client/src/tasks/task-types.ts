import type { components, OperationHeaders } from '@leasehold/protocol';
import type { Logger } from '../core/logger.js';
import type { Redactor } from '../core/redact.js';
import type { GrantFlights } from '../leases/grant-flights.js';
import type { LeaseEndings } from '../leases/lease-backend.js';
import type { LeaseBook } from '../leases/lease-tracker.js';
import type { Api } from '../resources/api.js';
import type { CallOptions } from '../resources/call-options.js';
import type { Task } from '../resources/wire-types.js';

/** A task with the `ETag` its next write must send as `If-Match`. */
export interface TaskWithEtag {
  task: Task;
  etag: string;
}

/** Query of a task list page (`listTasks`'s parameters). */
export interface ListTasksQuery {
  /** Only tasks with this status. */
  status?: components['parameters']['TaskStatusFilter'] | undefined;
  /**
   * `true`: only tasks a worker may take now — `Todo` or stalled (`InProgress` whose claim ended
   * without `complete`), unclaimed, past their retry backoff (`availableUtc`).
   */
  claimable?: boolean | undefined;
  /** Page size, 1–100 (server default 50). */
  limit?: components['parameters']['Limit'] | undefined;
  /** The previous page's `nextCursor`. */
  cursor?: components['parameters']['Cursor'] | undefined;
}

/** Options of `tasks.list()`: the query (`status`, `limit` per page, a starting `cursor`) plus call options. */
export type ListTasksOptions = ListTasksQuery & CallOptions;

/** The preconditions of a task write: the current `ETag`, and the live claim token when the task is claimed. */
export interface TaskWriteGuard {
  /** The task's current ETag, sent as `If-Match`. */
  etag: string;
  /** The live claim token, sent as `X-Task-Claim` (protected writes of a claimed task). */
  claimToken?: string | undefined;
}

/** The `If-Match` / `X-Task-Claim` headers of a protected write (the spec's spelling). */
export function guardHeaders(guard: TaskWriteGuard): Pick<OperationHeaders<'updateTask'>, 'If-Match' | 'X-Task-Claim'> {
  return { 'If-Match': guard.etag, 'X-Task-Claim': guard.claimToken };
}

/** What the task classes need from the client: the API, lease tracking, grant flights, the log and the redactor. */
export interface TaskContext {
  readonly api: Api;
  readonly leases: LeaseBook;
  readonly grants: GrantFlights;
  readonly endings: LeaseEndings;
  readonly log: Logger;
  /** Masks secrets in text the client writes itself (a failure note). */
  readonly redactor: Redactor;
  /** Aborts when the client closes: a loop riding through an outage stops with `ClientClosedError`. */
  readonly closeSignal: AbortSignal;
}

