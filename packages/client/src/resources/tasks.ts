import { encodePath } from '../core/build-url.js';
import { request, type LeaseholdResponse, type RequestConfig } from '../core/request.js';
import type {
  CompleteTaskRequest,
  CreateTaskRequest,
  Task,
  TaskClaim,
  TaskClaimRelease,
  TaskList,
  TaskNote,
  TaskStatus,
  UpdateTaskRequest,
} from '../wire-types.js';
import type { CallOptions } from './call-options.js';
import { objectBody, taskAnswer, taskClaimGrant, taskClaimRenewal, taskNote } from './answer-shapes.js';

const CREATED = taskAnswer([201]);
const TASK = taskAnswer([200]);
const CLAIM_RELEASED = objectBody('task claim release');

/** The preconditions of a task write: the current `ETag`, and the live claim token when the task is claimed. */
export interface TaskWriteGuard {
  /** The task's current ETag, sent as `If-Match`. */
  etag: string;
  /** The live claim token, sent as `X-Task-Claim` (protected writes of a claimed task). */
  claimToken?: string | undefined;
}

/** Query of a task list page. */
export interface ListTasksQuery {
  /** Only tasks with this status. */
  status?: TaskStatus | undefined;
  /** Page size, 1–100 (server default 50). */
  limit?: number | undefined;
  /** The previous page's `nextCursor`. */
  cursor?: string | undefined;
}

/** The task operations under `/v1/tasks`, one call each. */
export class TasksResource {
  readonly #config: RequestConfig;

  constructor(config: RequestConfig) {
    this.#config = config;
  }

  /** `GET /v1/tasks`: one page of tasks in id order. */
  list(query: ListTasksQuery = {}, options: CallOptions = {}): Promise<LeaseholdResponse<TaskList>> {
    return request<TaskList>(this.#config, { method: 'GET', path: '/v1/tasks', query: { ...query }, ...options });
  }

  /** `POST /v1/tasks`. */
  create(body: CreateTaskRequest, options: CallOptions = {}): Promise<LeaseholdResponse<Task>> {
    return request<Task>(this.#config, { method: 'POST', path: '/v1/tasks', body, ...options, accept: CREATED });
  }

  /** `GET /v1/tasks/{taskId}` (the `ETag` header is the next write's `If-Match`). */
  get(taskId: number, options: CallOptions = {}): Promise<LeaseholdResponse<Task>> {
    return request<Task>(this.#config, { method: 'GET', path: encodePath`/v1/tasks/${taskId}`, ...options, accept: TASK });
  }

  /** `PATCH /v1/tasks/{taskId}` (protected write). */
  update(taskId: number, changes: UpdateTaskRequest, guard: TaskWriteGuard, options: CallOptions = {}): Promise<LeaseholdResponse<Task>> {
    return request<Task>(this.#config, { method: 'PATCH', path: encodePath`/v1/tasks/${taskId}`, body: changes, headers: guardHeaders(guard), ...options, accept: TASK });
  }

  /** `POST /v1/tasks/{taskId}/notes` (protected write). */
  addNote(taskId: number, text: string, guard: TaskWriteGuard, options: CallOptions = {}): Promise<LeaseholdResponse<TaskNote>> {
    return request<TaskNote>(this.#config, { method: 'POST', path: encodePath`/v1/tasks/${taskId}/notes`, body: { text }, headers: guardHeaders(guard), ...options, accept: taskNote });
  }

  /** `POST /v1/tasks/{taskId}/claim`, recording `session` as `Leasehold-Session`. */
  claim(taskId: number, guard: { etag: string; session: string }, options: CallOptions = {}): Promise<LeaseholdResponse<TaskClaim>> {
    return request<TaskClaim>(this.#config, { method: 'POST', path: encodePath`/v1/tasks/${taskId}/claim`, body: {}, headers: { 'If-Match': guard.etag, 'Leasehold-Session': guard.session }, ...options, accept: taskClaimGrant });
  }

  /** `POST /v1/tasks/{taskId}/claim/renew`: another 15 minutes. */
  renewClaim(taskId: number, guard: { etag: string; token: string }, options: CallOptions = {}): Promise<LeaseholdResponse<TaskClaim>> {
    return request<TaskClaim>(this.#config, { method: 'POST', path: encodePath`/v1/tasks/${taskId}/claim/renew`, body: { token: guard.token }, headers: { 'If-Match': guard.etag }, ...options, accept: taskClaimRenewal });
  }

  /** `POST /v1/tasks/{taskId}/claim/release`. */
  releaseClaim(taskId: number, guard: { etag: string; token: string }, options: CallOptions = {}): Promise<LeaseholdResponse<TaskClaimRelease>> {
    return request<TaskClaimRelease>(this.#config, { method: 'POST', path: encodePath`/v1/tasks/${taskId}/claim/release`, body: { token: guard.token }, headers: { 'If-Match': guard.etag }, ...options, accept: CLAIM_RELEASED });
  }

  /** `POST /v1/tasks/{taskId}/complete` (protected write; releases the claim in the same write). */
  complete(taskId: number, body: CompleteTaskRequest, guard: TaskWriteGuard, options: CallOptions = {}): Promise<LeaseholdResponse<Task>> {
    return request<Task>(this.#config, { method: 'POST', path: encodePath`/v1/tasks/${taskId}/complete`, body, headers: guardHeaders(guard), ...options, accept: TASK });
  }
}

function guardHeaders(guard: TaskWriteGuard): Record<string, string | undefined> {
  return { 'If-Match': guard.etag, 'X-Task-Claim': guard.claimToken };
}
