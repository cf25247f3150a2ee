import type { ClientRuntime } from './client-runtime.js';
import { ApiError, PreconditionFailedError } from './core/api-error.js';
import { LeaseLostError } from './core/lease-lost-error.js';
import { check, checkFunction, checkNumber } from './core/argument-checks.js';
import type { CallOptions } from './resources/call-options.js';
import { lossOf, runUnderLease } from './run-under-lease.js';
import { serverRemainingMs } from './server-time.js';
import type { TaskLease } from './task-lease.js';
import type { ClaimedTask, Tasks } from './tasks.js';
import { UnusableLeaseError } from './unusable-lease-error.js';
import type { CompleteTaskRequest, Task, TaskNote, UpdateTaskRequest } from './wire-types.js';

/** Options of `lh.tasks.work()`. */
export interface TaskWorkOptions<T = unknown> {
  /**
   * Names the claim in the idempotency store so a worker restarted DURING the claim replays it
   * (and gets its token back). Default `task:${taskId}:claim`. Its stored key is deleted when the
   * claim ends (completed, released or lost), so a later `work()` on the task claims afresh.
   */
  operationId?: string | undefined;
  /** The least time a claim must have left (server clock) to start work. Default 30 000 ms. */
  minRemainingMs?: number | undefined;
  /** A closing note written with the completion (or a function of `fn`'s value returning one). */
  note?: string | ((value: T) => string | undefined) | undefined;
  /** PATCH the task to `InProgress` before running `fn` (skipped when it already is). Default true. */
  markInProgress?: boolean | undefined;
  /** Aborts the loop's own requests (read, claim, patch, complete); `fn` watches `ctx.lease.signal`. */
  signal?: AbortSignal | undefined;
  /**
   * Where the task goes when `fn` throws (while the claim is still held): `Todo` (default: another
   * worker may take it) or `Blocked` (someone must look first). The failure is recorded first.
   */
  failureStatus?: 'Todo' | 'Blocked' | undefined;
  /**
   * The note recording a failure of `fn`: a function of the error returning its text, or `false`
   * for none. Default: `work() failed: <error name>: <message>` (redacted, at most 2,000 chars).
   */
  failureNote?: false | ((error: unknown) => string) | undefined;
}

/**
 * What `fn` gets inside `lh.tasks.work()`: the task as last read, its ETag, the claim's lease,
 * and protected writes that send `If-Match` + `X-Task-Claim` and then re-read the task.
 */
export interface TaskWorkContext {
  /** The task as last read. */
  readonly task: Task;
  /** The task's current ETag (updated after every write made through this context). */
  readonly etag: string;
  /** The claim: pass `lease.signal` to the work; it aborts if the claim is lost. */
  readonly lease: TaskLease;
  /** Appends a note, then re-reads the task. */
  addNote(text: string, options?: CallOptions): Promise<TaskNote>;
  /** Changes status, title or description, then re-reads the task. */
  update(changes: UpdateTaskRequest, options?: CallOptions): Promise<Task>;
  /** Re-reads the task and its ETag. */
  refresh(options?: CallOptions): Promise<Task>;
}

/** The context object: every write is guarded by the claim and followed by a fresh read. */
class WorkContext implements TaskWorkContext {
  task: Task;
  etag: string;
  readonly lease: TaskLease;
  readonly #tasks: Tasks;

  constructor(tasks: Tasks, lease: TaskLease, task: Task, etag: string) {
    this.#tasks = tasks;
    this.lease = lease;
    this.task = task;
    this.etag = etag;
  }

  async addNote(text: string, options: CallOptions = {}): Promise<TaskNote> {
    const { note } = await this.#guarded(() => this.#tasks.addNote(this.task.id, text, { ...options, etag: this.etag, claimToken: this.lease.token }));
    await this.refresh(options);
    return note;
  }

  async update(changes: UpdateTaskRequest, options: CallOptions = {}): Promise<Task> {
    await this.#guarded(() => this.#tasks.update(this.task.id, changes, { ...options, etag: this.etag, claimToken: this.lease.token }));
    return this.refresh(options);
  }

  async refresh(options: CallOptions = {}): Promise<Task> {
    const { task, etag } = await this.#tasks.get(this.task.id, { signal: options.signal });
    this.task = task;
    this.etag = etag;
    return task;
  }

  /** Completes the task with the claim's token (one fresh read and retry after a 412). */
  async complete(body: CompleteTaskRequest, signal: AbortSignal | undefined): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.#guarded(() => this.#tasks.complete(this.task.id, body, { etag: this.etag, claimToken: this.lease.token, signal }));
        return;
      } catch (error) {
        if (!(error instanceof PreconditionFailedError) || attempt >= 2) throw error;
        await this.refresh({ signal });
      }
    }
  }

  /**
   * Refuses to write with a lost claim; a write answered "claim gone" loses the lease and throws
   * its loss. So does any other refusal (4xx) when a fresh read shows the claim is no longer
   * ours — the task was completed (a Done task has no claim: its writes answer 422) or claimed
   * by another worker, e.g. after a stall or a server clock jump outran the claim.
   */
  async #guarded<R>(write: () => Promise<R>): Promise<R> {
    this.lease.throwIfLost();
    try {
      return await write();
    } catch (error) {
      if (this.lease.reportError(error)) throw this.lease.error;
      if (error instanceof ApiError && error.status >= 400 && error.status < 500 && (await this.#claimGone())) {
        this.lease.reportError(new LeaseLostError('lost', this.lease.claimId, { message: `Task ${this.task.id} is Done or claimed by another worker: this claim is gone.`, cause: error }));
        throw this.lease.error ?? error;
      }
      throw error;
    }
  }

  /** Whether a fresh read shows the task Done or claimed under another claim. */
  async #claimGone(): Promise<boolean> {
    try {
      const { task } = await this.#tasks.get(this.task.id);
      return task.status === 'Done' || task.claim?.claimId !== this.lease.claimId;
    } catch {
      return false;
    }
  }
}

/** `lh.tasks.work()`: the task page's safe worker loop (see `Tasks.work`). */
export async function workOnTask<T>(
  runtime: ClientRuntime,
  tasks: Tasks,
  taskId: number,
  fn: (ctx: TaskWorkContext) => T | Promise<T>,
  options: TaskWorkOptions<T>,
): Promise<T> {
  checkWorkOptions(fn, options);
  const { signal } = options;
  const operationId = options.operationId ?? `task:${taskId}:claim`;
  const minRemainingMs = options.minRemainingMs ?? 30_000;
  const releaseQuietly = async (lease: TaskLease): Promise<void> => {
    try {
      await lease.release();
    } catch (error) {
      runtime.log.warn('Releasing the task claim failed; it is retried after the next heartbeat answer; no heartbeat names it, so it expires at worst.', { taskId, error: String(error) });
    }
  };

  // 1–2. Read the task and its ETag; claim with If-Match and a persisted key.
  let claimed = await tasks.claim(taskId, { etag: (await tasks.get(taskId, { signal })).etag, operationId, signal });
  let ctx: WorkContext;
  try {
    let read = await tasks.get(taskId, { signal });
    if (claimed.lease.replayed && read.task.claim?.claimId === claimed.lease.claimId && read.task.claim.holderSession !== runtime.session) {
      // A replayed claim of an earlier process with another session: our heartbeat cannot
      // renew it. Give it back and claim afresh under this session.
      await claimed.lease.release();
      claimed = await tasks.claim(taskId, { etag: (await tasks.get(taskId, { signal })).etag, operationId, signal });
      read = await tasks.get(taskId, { signal });
    }

    // 3. The claim must still be usable.
    const remainingMs = remainingOf(claimed);
    if (remainingMs < minRemainingMs) throw new UnusableLeaseError(claimed.lease.claimId, remainingMs, minRemainingMs);

    // 4. Claiming does not start the task.
    ctx = new WorkContext(tasks, claimed.lease, read.task, read.etag);
    if ((options.markInProgress ?? true) && ctx.task.status !== 'InProgress') await ctx.update({ status: 'InProgress' }, { signal });
  } catch (error) {
    // Never leave a claim behind that nobody works under (the heartbeat would keep it alive).
    const loss = lossOf(claimed.lease);
    if (!loss) await releaseQuietly(claimed.lease);
    throw loss ?? error;
  }
  const { lease } = claimed;

  // 5–7. Work under the claim, then complete (releasing it in the same write) or release.
  return runUnderLease(lease, () => fn(ctx), runtime.log, {
    onSuccess: async (value) => {
      const body: CompleteTaskRequest = {};
      const result = jsonValue(value);
      if (result.ok) body.result = result.value;
      const note = typeof options.note === 'function' ? options.note(value) : options.note;
      if (note !== undefined) body.note = note;
      try {
        await ctx.complete(body, signal);
      } catch (error) {
        const loss = lossOf(lease);
        if (loss) throw loss;
        await releaseQuietly(lease);
        throw error;
      }
      await lease.settledByServer();
    },
    onError: async (error) => {
      await recordFailure(runtime, ctx, error, options);
      await releaseQuietly(lease);
    },
  });
}

/** Longest failure note written by default. */
const FAILURE_NOTE_MAX = 2_000;

/**
 * `fn` threw while the claim was still held: leave a trace on the task (a note with the error,
 * then the status `failureStatus`) before the claim is released. Best effort: a failing write
 * is logged, never thrown over `fn`'s own error.
 */
async function recordFailure<T>(runtime: ClientRuntime, ctx: WorkContext, error: unknown, options: TaskWorkOptions<T>): Promise<void> {
  const status = options.failureStatus ?? 'Todo';
  const attempt = async (what: string, write: () => Promise<unknown>): Promise<void> => {
    try {
      await write();
    } catch (recordError) {
      runtime.log.warn(`Recording the failure on the task (${what}) failed; the claim is released anyway.`, { taskId: ctx.task.id, error: String(recordError) });
    }
  };
  if (options.failureNote !== false) {
    await attempt('note', async () => {
      const text = options.failureNote ? options.failureNote(error) : defaultFailureNote(runtime, error, status);
      if (typeof text === 'string' && text !== '') await ctx.addNote(text.slice(0, 20_000), { signal: options.signal });
    });
  }
  if (!ctx.lease.error && ctx.task.status !== status) await attempt('status', () => ctx.update({ status }, { signal: options.signal }));
}

function defaultFailureNote(runtime: ClientRuntime, error: unknown, status: string): string {
  const described = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const text = `work() failed: ${described} (task back to ${status}, claim released).`;
  const safe = runtime.config.redactor?.redact(text) ?? text;
  return safe.length > FAILURE_NOTE_MAX ? `${safe.slice(0, FAILURE_NOTE_MAX - 1)}…` : safe;
}

/** Time left on the claim by the server's clock (its `Date` header), else by the local deadline. */
function remainingOf(claimed: ClaimedTask): number {
  const expiresAt = Date.parse(claimed.response.data.expiresUtc);
  return serverRemainingMs(Number.isFinite(expiresAt) ? expiresAt : undefined, claimed.response.headers) ?? claimed.lease.remainingMs;
}

/** `value` as JSON (a normalised copy), when it is representable. */
function jsonValue(value: unknown): { ok: true; value: unknown } | { ok: false } {
  if (value === undefined) return { ok: false };
  try {
    const text = JSON.stringify(value);
    return text === undefined ? { ok: false } : { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/** Refuses bad `work()` arguments before anything is sent. */
function checkWorkOptions<T>(fn: unknown, options: TaskWorkOptions<T>): void {
  const owner = 'tasks.work';
  check(typeof fn === 'function', 'fn', 'a function', fn, owner);
  check(typeof options === 'object' && options !== null, 'options', 'an object', options, owner);
  checkNumber(options.minRemainingMs, 'minRemainingMs', 'a non-negative number of milliseconds', (n) => n >= 0, owner);
  if (options.failureStatus !== undefined) check(options.failureStatus === 'Todo' || options.failureStatus === 'Blocked', 'failureStatus', '"Todo" or "Blocked"', options.failureStatus, owner);
  if (options.failureNote !== undefined && options.failureNote !== false) checkFunction(options.failureNote, 'failureNote', owner);
}
