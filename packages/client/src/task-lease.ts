import type { ClientRuntime } from './client-runtime.js';
import { PreconditionFailedError } from './core/api-error.js';
import { LeaseholdError } from './core/leasehold-error.js';
import type { LeaseholdResponse } from './core/request-options.js';
import type { Grant } from './leases/grant-flights.js';
import { Lease, type LeaseInit } from './leases/lease.js';
import type { CallOptions } from './resources/call-options.js';
import type { LeaseBackend, LeaseRenewal } from './leases/lease-backend.js';
import { TASK_CLAIM_DURATION_MS } from './leases/lease-kind.js';
import { grantDurationMs } from './server-time.js';
import type { TaskClaim } from './wire-types.js';

/**
 * A 15-minute task claim, from `lh.tasks.claim()` (or inside `lh.tasks.work()`). Renewed by the
 * batch heartbeat; `release()` reads the task's ETag and releases the claim.
 * @example
 * const { lease, etag } = await lh.tasks.claim(42, { etag });
 */
export class TaskLease extends Lease {
  /** The claimed task. */
  readonly taskId: number;
  /** The claim's expiry as the claim answer gave it (RFC 3339 UTC, server clock). */
  readonly expiresUtc: string;
  /** Whether the claim answer was an idempotent replay of an earlier request's. */
  readonly replayed: boolean;
  readonly #backend: TaskLeaseBackend;

  /** @internal */
  constructor(init: LeaseInit & { taskId: number; expiresUtc: string; replayed: boolean; backend: TaskLeaseBackend }) {
    super(init);
    this.taskId = init.taskId;
    this.expiresUtc = init.expiresUtc;
    this.replayed = init.replayed;
    this.#backend = init.backend;
  }

  /**
   * Internal: the claim ended on the server by another write (completing the task releases
   * it): stop renewing it locally without a release call.
   */
  settledByServer(): Promise<void> {
    this.#backend.settled = true;
    return this.release();
  }
}

/** Builds the lease for a claim answer and registers it, or returns the tracked lease with the same claimId (not fresh). */
export function adoptTaskLease(
  runtime: ClientRuntime,
  taskId: number,
  response: LeaseholdResponse<TaskClaim>,
  sentAt: number,
  operationId?: string,
): Grant<TaskLease> {
  const claim = response.data;
  const existing = runtime.tracked(claim.claimId);
  if (existing instanceof TaskLease) return { lease: existing, fresh: false };
  if (typeof claim.token !== 'string') throw new LeaseholdError(`The claim answer for task ${taskId} carries no token.`);
  const backend = new TaskLeaseBackend(runtime, taskId, claim.token, operationId);
  const expiresAt = Date.parse(claim.expiresUtc);
  const lease = new TaskLease({
    claimId: claim.claimId,
    token: claim.token,
    fence: claim.fence,
    kind: 'task',
    backend,
    expiresAt: Number.isFinite(expiresAt) ? expiresAt : null,
    onListenerError: runtime.onListenerError,
    taskId,
    expiresUtc: claim.expiresUtc,
    replayed: response.replayed,
  });
  const nominal = Number.isFinite(claim.leaseSeconds) ? claim.leaseSeconds * 1000 : TASK_CLAIM_DURATION_MS;
  const durationMs = grantDurationMs(nominal, Number.isFinite(expiresAt) ? expiresAt : undefined, response.headers, response.replayed);
  return { lease: runtime.track(lease, { durationMs, sentAt }), fresh: true };
}

/**
 * Internal: renew and release of one task claim; both need the task's current ETag, read first.
 * When the claim ends (released, completed, lost), the stored key of the claim's `operationId`
 * is deleted, so a later claim under the same id is a new claim, not a replay of this one.
 */
export class TaskLeaseBackend implements LeaseBackend {
  /** Set once a write (complete) ended the claim on the server: release then calls nothing. */
  settled = false;
  readonly #runtime: ClientRuntime;
  readonly #taskId: number;
  readonly #token: string;
  readonly #operationId: string | undefined;

  /** @internal */
  constructor(runtime: ClientRuntime, taskId: number, token: string, operationId?: string) {
    this.#runtime = runtime;
    this.#taskId = taskId;
    this.#token = token;
    this.#operationId = operationId;
  }

  async renew(): Promise<LeaseRenewal> {
    const { data } = await this.#withEtag((etag) => this.#runtime.tasks.renewClaim(this.#taskId, { etag, token: this.#token }));
    const expiresAt = Date.parse(data.expiresUtc);
    return { durationMs: data.leaseSeconds * 1000, ...(Number.isFinite(expiresAt) ? { expiresAt } : {}) };
  }

  async release(): Promise<void> {
    try {
      if (this.settled) return;
      const options = this.#runtime.releaseOptions();
      await this.#withEtag((etag) => this.#runtime.tasks.releaseClaim(this.#taskId, { etag, token: this.#token }, options), options);
    } finally {
      await this.#runtime.forgetOperation(this.#operationId);
    }
  }

  /** One release attempt (no retries) of a claim this client gave up on (the scheduler retries it after each heartbeat answer). */
  async releaseAbandoned(): Promise<void> {
    if (this.settled) return;
    const options: CallOptions = { maxRetries: 0 };
    await this.#withEtag((etag) => this.#runtime.tasks.releaseClaim(this.#taskId, { etag, token: this.#token }, options), options);
  }

  /** The claim is gone: its claim operation is over. */
  lost(): void {
    void this.#runtime.forgetOperation(this.#operationId);
  }

  /** Reads the ETag and sends `write`; a 412 (the task changed in between) reads and sends once more. */
  async #withEtag<T>(write: (etag: string) => Promise<T>, options: CallOptions = {}): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const { headers } = await this.#runtime.tasks.get(this.#taskId, options);
      const etag = headers.etag;
      if (etag === undefined) throw new LeaseholdError(`Task ${this.#taskId} was read without an ETag.`);
      try {
        return await write(etag);
      } catch (error) {
        if (!(error instanceof PreconditionFailedError) || attempt >= 2) throw error;
      }
    }
  }
}
