import { ApiError, PreconditionFailedError } from '../core/errors/api-error.js';
import { LeaseLostError } from '../core/errors/lease-lost-error.js';
import type { CallOptions } from '../resources/call-options.js';
import type { CompleteTaskRequest, Task, TaskNote, UpdateTaskRequest } from '../resources/wire-types.js';
import type { ClaimedTask, TaskLease } from './task-lease.js';
import type { TaskWithEtag, TaskWriteGuard } from './task-types.js';

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
export class WorkContext implements TaskWorkContext {
  task: Task;
  etag: string;
  readonly lease: TaskLease;
  readonly #tasks: TaskOps;

  constructor(tasks: TaskOps, lease: TaskLease, task: Task, etag: string) {
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
  async complete(body: CompleteTaskRequest, signal: AbortSignal | undefined, idempotencyKey?: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        const key = attempt === 1 && idempotencyKey !== undefined ? { idempotencyKey } : {};
        await this.#guarded(() => this.#tasks.complete(this.task.id, body, { etag: this.etag, claimToken: this.lease.token, signal, ...key }));
        return;
      } catch (error) {
        if (!(error instanceof PreconditionFailedError) || attempt >= 2) throw error;
        await this.refresh({ signal });
      }
    }
  }

  /**
   * Whether the complete sent under `idempotencyKey` took effect: the same request again, whose
   * replay answers what the first did. For a claim reported lost while that complete's answer was
   * in flight (a heartbeat saw the claim end by that very complete, in an outage).
   */
  async completeLanded(body: CompleteTaskRequest, signal: AbortSignal | undefined, idempotencyKey: string): Promise<boolean> {
    try {
      await this.#tasks.complete(this.task.id, body, { etag: this.etag, claimToken: this.lease.token, signal, idempotencyKey });
      return true;
    } catch {
      return false;
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

/** The task calls the worker loop and its context make (implemented by `Tasks`). */
export interface TaskOps {
  get(taskId: number, options?: CallOptions): Promise<TaskWithEtag>;
  claim(taskId: number, options: { etag: string } & CallOptions): Promise<ClaimedTask>;
  update(taskId: number, changes: UpdateTaskRequest, options: TaskWriteGuard & CallOptions): Promise<TaskWithEtag>;
  addNote(taskId: number, text: string, options: TaskWriteGuard & CallOptions): Promise<{ note: TaskNote; etag: string }>;
  complete(taskId: number, body: CompleteTaskRequest, options: TaskWriteGuard & CallOptions): Promise<TaskWithEtag>;
}
