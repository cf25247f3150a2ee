import type { ClientRuntime } from './client-runtime.js';
import { LeaseholdError } from './core/leasehold-error.js';
import { UnexpectedResponseError } from './core/unexpected-response-error.js';
import type { LeaseholdResponse } from './core/request-options.js';
import { pickCallOptions, type CallOptions } from './resources/call-options.js';
import type { ListTasksQuery, TaskWriteGuard } from './resources/tasks.js';
import { adoptTaskLease, type TaskLease } from './task-lease.js';
import { workOnTask, type TaskWorkContext, type TaskWorkOptions } from './task-work.js';
import type {
  CompleteTaskRequest,
  CreateTaskRequest,
  Task,
  TaskClaim,
  TaskClaimRelease,
  TaskNote,
  UpdateTaskRequest,
} from './wire-types.js';

/** A task with the `ETag` its next write must send as `If-Match`. */
export interface TaskWithEtag {
  task: Task;
  etag: string;
}

/** A claim, registered for renewal: the lease, the ETag after the claim, and the raw answer. */
export interface ClaimedTask {
  lease: TaskLease;
  etag: string;
  /** The claim answer (its `token` is `lease.token`). */
  response: LeaseholdResponse<TaskClaim>;
}

/** Options of `tasks.list()`: the query (`status`, `limit` per page, a starting `cursor`) plus call options. */
export type ListTasksOptions = ListTasksQuery & CallOptions;

/** The `ETag` of a task answer (every task answer carries one; one without is an `UnexpectedResponseError`). */
export function etagOf(response: LeaseholdResponse<unknown>): string {
  const etag = response.headers.etag;
  if (etag === undefined || etag === '') {
    throw new UnexpectedResponseError({
      status: response.status,
      code: 'unexpected_response_shape',
      message: 'The task answer carries no ETag.',
      requestId: response.requestId,
      headers: response.headers,
    });
  }
  return etag;
}

/**
 * Tasks and their 15-minute claims, guarded by ETag / If-Match. Every write takes the current
 * `etag`; protected writes of a claimed task also take the claim's token (`claimToken`).
 * `work()` runs the whole safe worker loop.
 * @example
 * const { task, etag } = await lh.tasks.create({ title: 'Rebuild the November report' });
 * const result = await lh.tasks.work(task.id, async (ctx) => { await ctx.addNote('Started.'); return { pages: 12 }; });
 */
export class Tasks {
  readonly #runtime: ClientRuntime;
  readonly #working = new Set<number>();

  /** @internal */
  constructor(runtime: ClientRuntime) {
    this.#runtime = runtime;
  }

  /** Creates a task (`Todo`, unclaimed); the create is idempotent across retries. */
  async create(body: CreateTaskRequest, options: CallOptions = {}): Promise<TaskWithEtag> {
    const response = await this.#runtime.tasks.create(body, pickCallOptions(options));
    return { task: response.data, etag: etagOf(response) };
  }

  /**
   * Every task of the account in id order (optionally only those with `status`), fetched a page
   * (`limit`) at a time as the loop asks for more. Read a task (`get`) for its ETag before a write.
   * @example
   * for await (const task of lh.tasks.list({ status: 'Todo' })) await lh.tasks.work(task.id, render);
   */
  async *list(options: ListTasksOptions = {}): AsyncGenerator<Task, void, undefined> {
    const { status, limit } = options;
    const call = pickCallOptions(options);
    let cursor = options.cursor;
    do {
      const page = (await this.#runtime.tasks.list({ status, limit, cursor }, call)).data;
      yield* page.data;
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
  }

  /** Reads a task and its current ETag. */
  async get(taskId: number, options: CallOptions = {}): Promise<TaskWithEtag> {
    const response = await this.#runtime.tasks.get(taskId, pickCallOptions(options));
    return { task: response.data, etag: etagOf(response) };
  }

  /** Changes status (`Todo`, `InProgress`, `Blocked`), title or description. */
  async update(taskId: number, changes: UpdateTaskRequest, options: TaskWriteGuard & CallOptions): Promise<TaskWithEtag> {
    const response = await this.#runtime.tasks.update(taskId, changes, guardOf(options), pickCallOptions(options));
    return { task: response.data, etag: etagOf(response) };
  }

  /** Appends a note (persist `operationId`/`idempotencyKey` with the note when its outcome may be uncertain). */
  async addNote(taskId: number, text: string, options: TaskWriteGuard & CallOptions): Promise<{ note: TaskNote; etag: string }> {
    const response = await this.#runtime.tasks.addNote(taskId, text, guardOf(options), pickCallOptions(options));
    return { note: response.data, etag: etagOf(response) };
  }

  /**
   * Claims a task for 15 minutes (sending the client's session) and registers the claim with
   * the batch heartbeat. Pass an `operationId` so a retry after a crash replays the same claim;
   * its stored key is deleted once this claim's lease ends (a later claim under it is new).
   */
  async claim(taskId: number, options: { etag: string } & CallOptions): Promise<ClaimedTask> {
    let claimed: ClaimedTask | undefined;
    // Through the grant flights: a claim granted after `signal` aborted (or the client closed) is released.
    const lease = await this.#runtime.grants.obtain(options.signal, async (signal) => {
      const sentAt = this.#runtime.now();
      const response = await this.#runtime.tasks.claim(taskId, { etag: options.etag, session: this.#runtime.session }, { ...pickCallOptions(options), signal });
      const etag = etagOf(response);
      const grant = adoptTaskLease(this.#runtime, taskId, response, sentAt, options.operationId);
      claimed = { lease: grant.lease, etag, response };
      return grant;
    });
    if (lease === null || claimed === undefined) throw new LeaseholdError(`The claim of task ${taskId} answered no claim.`);
    return claimed;
  }

  /** Renews a claim by token (raw; the batch heartbeat already renews claims of this client). */
  async renewClaim(taskId: number, options: { etag: string; token: string } & CallOptions): Promise<{ claim: TaskClaim; etag: string }> {
    const response = await this.#runtime.tasks.renewClaim(taskId, { etag: options.etag, token: options.token }, pickCallOptions(options));
    return { claim: response.data, etag: etagOf(response) };
  }

  /** Releases a claim by token (raw; prefer `lease.release()`, which also stops its renewals). */
  async releaseClaim(taskId: number, options: { etag: string; token: string } & CallOptions): Promise<{ release: TaskClaimRelease; etag: string }> {
    const response = await this.#runtime.tasks.releaseClaim(taskId, { etag: options.etag, token: options.token }, pickCallOptions(options));
    return { release: response.data, etag: etagOf(response) };
  }

  /** Completes the task (`Done`, with an optional `result` and closing `note`); the live claim is released in the same write. */
  async complete(taskId: number, body: CompleteTaskRequest, options: TaskWriteGuard & CallOptions): Promise<TaskWithEtag> {
    const response = await this.#runtime.tasks.complete(taskId, body, guardOf(options), pickCallOptions(options));
    return { task: response.data, etag: etagOf(response) };
  }

  /**
   * The safe worker loop: read the task and its ETag; claim it with If-Match and a persisted
   * key (`operationId`, default `task:${taskId}:claim`, so a worker restarted during the claim
   * replays it; the key is deleted once the claim ends, so a later `work()` claims afresh); refuse a claim with under 30 s left; PATCH `InProgress`; run `fn(ctx)` while the
   * batch heartbeat renews the claim; then complete the task (with `fn`'s value as `result`
   * when it is JSON), which releases the claim. If `fn` throws, the failure is recorded on the
   * task — a note with the error (`failureNote`), the status back to `Todo` or `Blocked`
   * (`failureStatus`, default `Todo`) — the claim is released, and the error rethrown; if the
   * claim is lost, `ctx.lease.signal` aborts and this rejects with `LeaseLostError` (nothing can
   * be recorded without the claim). Resolves with `fn`'s value.
   * @example
   * const pages = await lh.tasks.work(42, async (ctx) => {
   *   await ctx.addNote('Draft prepared.');
   *   return render({ signal: ctx.lease.signal });
   * }, { note: 'Published.' });
   */
  async work<T>(taskId: number, fn: (ctx: TaskWorkContext) => T | Promise<T>, options: TaskWorkOptions<T> = {}): Promise<T> {
    if (this.#working.has(taskId)) throw new LeaseholdError(`Task ${taskId} is already being worked on by this client.`);
    this.#working.add(taskId);
    try {
      return await workOnTask(this.#runtime, this, taskId, fn, options);
    } finally {
      this.#working.delete(taskId);
    }
  }
}

function guardOf(options: TaskWriteGuard): TaskWriteGuard {
  return { etag: options.etag, claimToken: options.claimToken };
}
