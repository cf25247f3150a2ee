import { PreconditionFailedError } from '../core/errors/api-error.js';
import { LeaseholdError } from '../core/errors/leasehold-error.js';
import type { LeaseholdResponse } from '../core/request/request-options.js';
import { adoptLease } from '../leases/adopt-lease.js';
import type { Grant } from '../leases/grant-flights.js';
import { Lease, type LeaseInit } from '../leases/lease.js';
import { SettlingBackend, type LeaseRenewal } from '../leases/lease-backend.js';
import { TASK_CLAIM_DURATION_MS } from '../leases/lease-kind.js';
import { grantDurationMs } from '../leases/server-time.js';
import type { CallOptions } from '../resources/call-options.js';
import type { TaskClaim } from '../resources/wire-types.js';
import type { TaskContext } from './task-types.js';

/** A claim, registered for renewal: the lease, the ETag after the claim, and the raw answer. */
export interface ClaimedTask {
  lease: TaskLease;
  etag: string;
  /** The claim answer (its `token` is `lease.token`). */
  response: LeaseholdResponse<TaskClaim>;
}

/**
 * A 15-minute task claim, from `lh.tasks.claim()` (or inside `lh.tasks.work()`). Renewed by the
 * batch heartbeat; `release()` reads the task's ETag and releases the claim.
 * @example
 * const { lease, etag } = await lh.tasks.claim(42, { etag: (await lh.tasks.get(42)).etag });
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
  constructor(init: LeaseInit & { fence: number; taskId: number; expiresUtc: string; replayed: boolean; backend: TaskLeaseBackend }) {
    super(init);
    this.taskId = init.taskId;
    this.expiresUtc = init.expiresUtc;
    this.replayed = init.replayed;
    this.#backend = init.backend;
  }

  /** The claim's fence: a task claim is granted with one (never queued). */
  override get fence(): number {
    return super.fence as number;
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
export function adoptTaskLease(ctx: TaskContext, taskId: number, response: LeaseholdResponse<TaskClaim>, sentAt: number, operationId?: string): Grant<TaskLease> {
  const claim = response.data;
  const expiresAt = Date.parse(claim.expiresUtc);
  const nominal = Number.isFinite(claim.leaseSeconds) ? claim.leaseSeconds * 1000 : TASK_CLAIM_DURATION_MS;
  return adoptLease(ctx.leases, {
    claimId: claim.claimId,
    isSameKind: (lease): lease is TaskLease => lease instanceof TaskLease,
    build: (onListenerError) => {
      if (typeof claim.token !== 'string') throw new LeaseholdError(`The claim answer for task ${taskId} carries no token.`);
      return new TaskLease({
        claimId: claim.claimId,
        token: claim.token,
        fence: claim.fence,
        kind: 'task',
        backend: new TaskLeaseBackend(ctx, taskId, claim.claimId, claim.token, operationId),
        expiresAt: Number.isFinite(expiresAt) ? expiresAt : null,
        onListenerError,
        taskId,
        expiresUtc: claim.expiresUtc,
        replayed: response.replayed,
      });
    },
    durationMs: grantDurationMs(nominal, Number.isFinite(expiresAt) ? expiresAt : undefined, response.headers, response.replayed),
    sentAt,
  });
}

/**
 * Internal: renew and release of one task claim; both need the task's current ETag, read first.
 * When the claim ends (released, completed, lost), the stored key of the claim's `operationId`
 * is deleted (the base backend), so a later claim under the same id is a new claim.
 */
export class TaskLeaseBackend extends SettlingBackend {
  /** Set once a write (complete) ended the claim on the server: release then calls nothing. */
  settled = false;
  readonly #ctx: TaskContext;
  readonly #taskId: number;
  readonly #token: string;
  readonly #claimId: string;

  /** @internal */
  constructor(ctx: TaskContext, taskId: number, claimId: string, token: string, operationId: string | undefined) {
    super(ctx.endings, operationId);
    this.#ctx = ctx;
    this.#taskId = taskId;
    this.#token = token;
    this.#claimId = claimId;
  }

  async renew(): Promise<LeaseRenewal> {
    const { data } = await this.#withEtag((etag) =>
      this.#ctx.api.call('renewTaskClaim', { path: { taskId: this.#taskId }, headers: { 'If-Match': etag }, body: { token: this.#token } }, {}, this.#claimId, 'task'),
    );
    const expiresAt = Date.parse(data.expiresUtc);
    return { durationMs: data.leaseSeconds * 1000, ...(Number.isFinite(expiresAt) ? { expiresAt } : {}) };
  }

  protected async settle(options: CallOptions): Promise<void> {
    if (this.settled) return;
    await this.#withEtag(
      (etag) => this.#ctx.api.call('releaseTaskClaim', { path: { taskId: this.#taskId }, headers: { 'If-Match': etag }, body: { token: this.#token } }, options, this.#claimId, 'task'),
      options,
    );
  }

  /** Reads the ETag and sends `write`; a 412 (the task changed in between) reads and sends once more. */
  async #withEtag<T>(write: (etag: string) => Promise<T>, options: CallOptions = {}): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const { headers } = await this.#ctx.api.call('getTask', { path: { taskId: this.#taskId } }, options);
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
