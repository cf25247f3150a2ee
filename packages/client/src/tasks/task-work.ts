import { generateIdempotencyKey } from '../core/idempotency/idempotency-key.js';
import { rideThrough } from '../core/retry/ride-through.js';
import { check, checkFunction, checkNumber } from '../internal/argument-checks.js';
import { lossOf, runUnderLease } from '../leases/run-under-lease.js';
import { serverRemainingMs } from '../leases/server-time.js';
import type { CompleteTaskRequest } from '../resources/wire-types.js';
import type { TaskLease } from './task-lease.js';
import type { ClaimedTask } from './task-lease.js';
import type { TaskContext } from './task-types.js';
import { giveUpIfExhausted } from './give-up.js';
import { UnusableLeaseError } from './unusable-lease-error.js';
import { WorkContext, type TaskOps, type TaskWorkContext } from './work-context.js';

export type { TaskWorkContext } from './work-context.js';

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
  /**
   * Stop retrying a task that keeps failing or killing its workers: when it was already claimed
   * `maxAttempts` times (its `attempts`), `work()` does not claim it again but writes a note saying
   * why, moves it to `Blocked` and rejects with `AttemptsExhaustedError`. Default: unlimited.
   */
  maxAttempts?: number | undefined;
}

/** `lh.tasks.work()`: the task page's safe worker loop (see `Tasks.work`). */
export async function workOnTask<T>(
  runtime: TaskContext,
  tasks: TaskOps,
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

  // Every step rides through an outage (same key each try) until it succeeds, `signal` aborts,
  // the claim is lost or an error is definitive.
  const ride = <R>(what: string, step: () => Promise<R>, lease?: TaskLease): Promise<R> => rideThrough(step, { what: `tasks.work(${taskId}): ${what}`, log: runtime.log, signal, lease, closed: runtime.closeSignal });

  // 1–2. Read the task and its ETag (a task tried `maxAttempts` times is given up on); claim with
  // If-Match and a persisted key (a retry after an outage reads the ETag again).
  const first = await ride('read', () => tasks.get(taskId, { signal }));
  await giveUpIfExhausted(tasks, first, options.maxAttempts, { signal });
  let tries = 0;
  let claimed = await ride('claim', async () =>
    tasks.claim(taskId, { etag: tries++ === 0 ? first.etag : (await tasks.get(taskId, { signal })).etag, operationId, signal }),
  );
  let ctx: WorkContext;
  try {
    let read = await ride('read', () => tasks.get(taskId, { signal }), claimed.lease);
    if (claimed.lease.replayed && read.task.claim?.claimId === claimed.lease.claimId && read.task.claim.holderSession !== runtime.leases.session) {
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
    const marking = { signal, idempotencyKey: generateIdempotencyKey() };
    if ((options.markInProgress ?? true) && ctx.task.status !== 'InProgress') await ride('mark InProgress', () => ctx.update({ status: 'InProgress' }, marking), claimed.lease);
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
      const completing = generateIdempotencyKey();
      try {
        await ride('complete', () => ctx.complete(body, signal, completing), lease);
      } catch (error) {
        const loss = lossOf(lease);
        // A heartbeat may have seen the claim end BY this complete, whose answer was lost (an
        // outage): the replay of its key says whether it landed, and then the work is done.
        if (loss && (await ctx.completeLanded(body, signal, completing))) return;
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
async function recordFailure<T>(runtime: TaskContext, ctx: WorkContext, error: unknown, options: TaskWorkOptions<T>): Promise<void> {
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

function defaultFailureNote(runtime: TaskContext, error: unknown, status: string): string {
  const described = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const text = `work() failed: ${described} (task back to ${status}, claim released).`;
  const safe = runtime.redactor.redact(text);
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
  checkNumber(options.maxAttempts, 'maxAttempts', 'a positive integer', (n) => Number.isInteger(n) && n >= 1, owner);
  if (options.failureStatus !== undefined) check(options.failureStatus === 'Todo' || options.failureStatus === 'Blocked', 'failureStatus', '"Todo" or "Blocked"', options.failureStatus, owner);
  if (options.failureNote !== undefined && options.failureNote !== false) checkFunction(options.failureNote, 'failureNote', owner);
}
