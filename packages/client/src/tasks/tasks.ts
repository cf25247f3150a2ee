import { LeaseholdError } from '../core/errors/leasehold-error.js';
import { acquireUnlessEnded } from '../leases/replayed-grant.js';
import { pickCallOptions, type CallOptions } from '../resources/call-options.js';
import type { CompleteTaskRequest, CreateTaskRequest, Task, TaskClaim, TaskClaimRelease, TaskNote, UpdateTaskRequest } from '../resources/wire-types.js';
import { etagOf } from './etag.js';
import { adoptTaskLease, type ClaimedTask } from './task-lease.js';
import { guardHeaders, type ListTasksOptions, type TaskContext, type TaskWithEtag, type TaskWriteGuard } from './task-types.js';
import { workOnTask, type TaskWorkOptions } from './task-work.js';
import type { TaskOps, TaskWorkContext } from './work-context.js';

/**
 * Tasks and their 15-minute claims, guarded by ETag / If-Match. Every write takes the current
 * `etag`; protected writes of a claimed task also take the claim's token (`claimToken`).
 * `work()` runs the whole safe worker loop.
 * @example
 * const { task } = await lh.tasks.create({ title: 'Rebuild the November report' });
 * const result = await lh.tasks.work(task.id, async (ctx) => { await ctx.addNote('Started.'); return { pages: 12 }; });
 */
export class Tasks implements TaskOps {
  readonly #ctx: TaskContext;
  readonly #working = new Set<number>();

  /** @internal */
  constructor(ctx: TaskContext) {
    this.#ctx = ctx;
  }

  /** Creates a task (`Todo`, unclaimed); the create is idempotent across retries. */
  async create(body: CreateTaskRequest, options: CallOptions = {}): Promise<TaskWithEtag> {
    const response = await this.#ctx.api.call('createTask', { body }, pickCallOptions(options));
    return { task: response.data, etag: etagOf(response) };
  }

  /**
   * Every task of the account in id order (optionally only those with `status`, or only the
   * `claimable` ones: `Todo` or stalled, unclaimed, past their backoff — what a worker should
   * list), fetched a page (`limit`) at a time as the loop asks for more. Read a task (`get`) for
   * its ETag before a write.
   * @example
   * for await (const task of lh.tasks.list({ claimable: true })) await lh.tasks.work(task.id, async (ctx) => ctx.task.title);
   */
  async *list(options: ListTasksOptions = {}): AsyncGenerator<Task, void, undefined> {
    const { status, limit } = options;
    const claimable = options.claimable === undefined ? undefined : options.claimable ? 'true' : 'false';
    const call = pickCallOptions(options);
    let cursor = options.cursor;
    do {
      const page = (await this.#ctx.api.call('listTasks', { query: { status, claimable, limit, cursor } }, call)).data;
      yield* page.data;
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
  }

  /** Reads a task and its current ETag. */
  async get(taskId: number, options: CallOptions = {}): Promise<TaskWithEtag> {
    const response = await this.#ctx.api.call('getTask', { path: { taskId } }, pickCallOptions(options));
    return { task: response.data, etag: etagOf(response) };
  }

  /** Changes status (`Todo`, `InProgress`, `Blocked`), title or description. */
  async update(taskId: number, changes: UpdateTaskRequest, options: TaskWriteGuard & CallOptions): Promise<TaskWithEtag> {
    const response = await this.#ctx.api.call('updateTask', { path: { taskId }, headers: guardHeaders(options), body: changes }, pickCallOptions(options));
    return { task: response.data, etag: etagOf(response) };
  }

  /** Appends a note (persist `operationId`/`idempotencyKey` with the note when its outcome may be uncertain). */
  async addNote(taskId: number, text: string, options: TaskWriteGuard & CallOptions): Promise<{ note: TaskNote; etag: string }> {
    const response = await this.#ctx.api.call('addTaskNote', { path: { taskId }, headers: guardHeaders(options), body: { text } }, pickCallOptions(options));
    return { note: response.data, etag: etagOf(response) };
  }

  /**
   * Claims a task for 15 minutes (sending the client's session) and registers the claim with
   * the batch heartbeat. Pass an `operationId` so a retry after a crash replays the same claim;
   * its stored key is deleted once this claim's lease ends (a later claim under it is new).
   */
  async claim(taskId: number, options: { etag: string } & CallOptions): Promise<ClaimedTask> {
    const ctx = this.#ctx;
    let claimed: ClaimedTask | undefined;
    // Through the grant flights: a claim granted after `signal` aborted (or the client closed) is released.
    // A replay (a restarted worker's operationId) whose claim already ended is dropped, and the task claimed afresh.
    const lease = await ctx.grants.obtain(options.signal, (signal) =>
      acquireUnlessEnded(async () => {
        const sentAt = ctx.leases.now();
        const headers = { 'If-Match': options.etag, 'Leasehold-Session': ctx.leases.session };
        const response = await ctx.api.call('claimTask', { path: { taskId }, headers, body: {} }, { ...pickCallOptions(options), signal });
        const etag = etagOf(response);
        const grant = adoptTaskLease(ctx, taskId, response, sentAt, options.operationId);
        claimed = { lease: grant.lease, etag, response };
        return { grant, replayed: response.replayed };
      }, ctx.log),
    );
    if (lease === null || claimed === undefined) throw new LeaseholdError(`The claim of task ${taskId} answered no claim.`);
    return claimed;
  }

  /** Renews a claim by token (raw; the batch heartbeat already renews claims of this client). */
  async renewClaim(taskId: number, options: { etag: string; token: string } & CallOptions): Promise<{ claim: TaskClaim; etag: string }> {
    const response = await this.#ctx.api.call('renewTaskClaim', { path: { taskId }, headers: { 'If-Match': options.etag }, body: { token: options.token } }, pickCallOptions(options));
    return { claim: response.data, etag: etagOf(response) };
  }

  /** Releases a claim by token (raw; prefer `lease.release()`, which also stops its renewals). */
  async releaseClaim(taskId: number, options: { etag: string; token: string } & CallOptions): Promise<{ release: TaskClaimRelease; etag: string }> {
    const response = await this.#ctx.api.call('releaseTaskClaim', { path: { taskId }, headers: { 'If-Match': options.etag }, body: { token: options.token } }, pickCallOptions(options));
    return { release: response.data, etag: etagOf(response) };
  }

  /** Completes the task (`Done`, with an optional `result` and closing `note`); the live claim is released in the same write. */
  async complete(taskId: number, body: CompleteTaskRequest, options: TaskWriteGuard & CallOptions): Promise<TaskWithEtag> {
    const response = await this.#ctx.api.call('completeTask', { path: { taskId }, headers: guardHeaders(options), body }, pickCallOptions(options));
    return { task: response.data, etag: etagOf(response) };
  }

  /**
   * An operator takes the task's live claim away without its token (key permission
   * `tasks:admin`): it ends as `revoked`, its holder's next heartbeat reports it lost, and the
   * task is claimable at once.
   */
  async revokeClaim(taskId: number, options: { etag: string } & CallOptions): Promise<TaskWithEtag> {
    const response = await this.#ctx.api.call('revokeTaskClaim', { path: { taskId }, headers: { 'If-Match': options.etag } }, pickCallOptions(options));
    return { task: response.data, etag: etagOf(response) };
  }

  /**
   * An operator puts the task back (key permission `tasks:admin`): any live claim revoked,
   * status `Todo`, `attempts` 0 and no backoff — the way to retry a task workers gave up on.
   */
  async requeue(taskId: number, options: { etag: string } & CallOptions): Promise<TaskWithEtag> {
    const response = await this.#ctx.api.call('requeueTask', { path: { taskId }, headers: { 'If-Match': options.etag } }, pickCallOptions(options));
    return { task: response.data, etag: etagOf(response) };
  }

  /**
   * The safe worker loop: read the task and its ETag; claim it with If-Match and a persisted
   * key (`operationId`, default `task:${taskId}:claim`, so a worker restarted during the claim
   * replays it; the key is deleted once the claim ends, so a later `work()` claims afresh); refuse
   * a claim with under 30 s left; PATCH `InProgress`; run `fn(ctx)` while the batch heartbeat
   * renews the claim; then complete the task (with `fn`'s value as `result` when it is JSON),
   * which releases the claim. If `fn` throws, the failure is recorded on the task — a note with
   * the error (`failureNote`), the status back to `Todo` or `Blocked` (`failureStatus`, default
   * `Todo`) — the claim is released, and the error rethrown; if the claim is lost,
   * `ctx.lease.signal` aborts and this rejects with `LeaseLostError` (nothing can be recorded
   * without the claim). Resolves with `fn`'s value.
   * @example
   * const pages = await lh.tasks.work(42, async (ctx) => {
   *   await ctx.addNote(`Draft prepared under fence ${ctx.lease.fence}.`);
   *   return render({ signal: ctx.lease.signal });
   * }, { note: 'Published.' });
   */
  async work<T>(taskId: number, fn: (ctx: TaskWorkContext) => T | Promise<T>, options: TaskWorkOptions<T> = {}): Promise<T> {
    if (this.#working.has(taskId)) throw new LeaseholdError(`Task ${taskId} is already being worked on by this client.`);
    this.#working.add(taskId);
    try {
      return await workOnTask(this.#ctx, this, taskId, fn, options);
    } finally {
      this.#working.delete(taskId);
    }
  }
}
