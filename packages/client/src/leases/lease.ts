import './async-disposable.js';
import { check } from '../internal/argument-checks.js';
import type { LeaseLostError } from '../core/errors/index.js';
import type { LeaseRenewal } from './lease-backend.js';
import { LeaseCore } from './lease-core.js';
import { leaseControl, type LeaseControl } from './lease-control.js';
import type { LeaseEvents } from './lease-events.js';
import type { LeaseInit } from './lease-init.js';
import type { LeaseKind, LeaseStatus } from './lease-kind.js';
import type { Listener } from './typed-emitter.js';

export type { LeaseInit } from './lease-init.js';

/**
 * One handle for a space-claim, task-claim or spool lease. Its `signal` aborts, with a
 * {@link LeaseLostError} as reason, the moment the lease can no longer be trusted; pass it to
 * the work the lease guards. The client's renewal scheduler renews it through the batch heartbeat.
 *
 * The batch heartbeat names exactly the leases the scheduler tracks, so a lease the client
 * gives up on — lost to its local deadline (a stall, failed heartbeats), or whose release
 * failed — is no longer renewed and expires at the end of its term. To free it sooner the
 * scheduler sends ONE best-effort release with its token at once (after a deadline loss) and
 * again after each heartbeat answer, for up to 10 minutes, until one succeeds or answers
 * 404/409/410.
 * @example
 * await using lease = await lh.space(spaceId).run(runId, { holder: 'worker-1' }).claim('reports/2026-11').acquire();
 * await rebuild({ signal: lease.signal, fence: lease.fence });
 */
export class Lease implements AsyncDisposable {
  /** Opaque, stable id of the lease. */
  readonly claimId: string;
  /** What the lease guards. */
  readonly kind: LeaseKind;
  readonly #token: string;
  readonly #core: LeaseCore;

  /** @internal */
  constructor(init: LeaseInit) {
    this.claimId = init.claimId;
    this.kind = init.kind;
    this.#token = init.token;
    this.#core = new LeaseCore(this, init);
  }

  /** The secret lease token (never logged by the SDK). */
  get token(): string {
    return this.#token;
  }
  /** The grant's fence; `null` while a space claim is queued (read after `granted`). */
  get fence(): number | null {
    return this.#core.fence;
  }
  /** `held`, `queued`, `lost` or `released` — as the local deadline says at the moment it is read. */
  get status(): LeaseStatus {
    this.#core.checkDeadline();
    return this.#core.status;
  }
  /** The server's last reported expiry (epoch ms, server clock): informational, never used for deadlines. */
  get expiresAt(): number | null {
    return this.#core.expiresAt;
  }
  /** A queued claim's place in the key's queue (1 = next). */
  get position(): number | undefined {
    return this.#core.position;
  }
  /** How many claimants wait for the key, as last reported. */
  get queueDepth(): number | undefined {
    return this.#core.queueDepth;
  }
  /**
   * Aborted, with a {@link LeaseLostError} reason, as soon as the lease can't be trusted (lost or
   * released). Its `aborted`, `reason` and `throwIfAborted()` check the local deadline when read,
   * so code that runs right after an event-loop stall sees the lease lost even before the
   * scheduler's late timer fires (its `abort` listeners then run at that read).
   */
  get signal(): AbortSignal {
    return this.#core.signal();
  }
  /** Why the lease is gone, once it is (the local deadline is checked when read). */
  get error(): LeaseLostError | undefined {
    this.#core.checkDeadline();
    return this.#core.error;
  }
  /** Milliseconds until the local deadline on the monotonic clock (`Infinity`: no deadline; 0 once gone). */
  get remainingMs(): number {
    const core = this.#core;
    core.checkDeadline();
    if (core.error) return 0;
    return Math.max(0, core.deadline - core.timing().now());
  }

  /** How long one heartbeat with `ttlSeconds` keeps this lease alive, in ms (`null`: never expires). */
  durationFor(ttlSeconds: number): number | null {
    return this.#core.term.heartbeatMs(ttlSeconds, this.#core.termMs);
  }

  /** Subscribes to an event; returns the unsubscribe function. */
  on<K extends keyof LeaseEvents>(event: K, listener: Listener<LeaseEvents[K]>): () => void {
    check(typeof listener === 'function', 'listener', 'a function', listener, 'lease.on');
    return this.#core.on(event, listener);
  }

  /** Throws the {@link LeaseLostError} if the lease is gone or its local deadline has passed (checked now). */
  throwIfLost(): void {
    this.#core.checkDeadline();
    if (this.#core.error) throw this.#core.error;
  }

  /**
   * Aborts the lease if `error` (e.g. from a write it guards: 410 `stale_token`, 409
   * `scope_cancelled`/`claim_not_held`/`lease_expired`) says it is gone; returns whether it did.
   */
  reportError(error: unknown): boolean {
    return this.#core.report(error);
  }

  /** Records the fence of a grant learned later (a queued claim granted by a heartbeat); never lowers it. */
  updateFence(fence: number): void {
    const core = this.#core;
    if (core.fence === null || fence > core.fence) core.fence = fence;
  }

  /**
   * Renews this lease now through its backend and resets the local deadline (counted from when
   * the request was sent). If the server says the lease is gone, the lease is aborted before
   * this rejects with the {@link LeaseLostError}; other errors are rethrown as they are.
   */
  async renew(): Promise<LeaseRenewal> {
    this.throwIfLost();
    const core = this.#core;
    const sentAt = core.timing().now();
    let result: LeaseRenewal;
    try {
      result = await core.backend.renew();
    } catch (error) {
      throw core.report(error) ? core.error : error;
    }
    // Released or lost while the request was out: a late success cannot resurrect the lease.
    if (core.error) throw core.error;
    core.renewedExplicitly(sentAt, result);
    if (core.error) throw core.error;
    core.hooks?.changed(this, 'renew');
    return result;
  }

  /**
   * Releases the lease: renewals stop at once (a heartbeat already in flight cannot resurrect
   * it), the signal aborts with reason `released`, then the server is told. Idempotent: every
   * call returns the first call's promise. A lease already lost is not sent to the server (and
   * a failed release is not retried here). The lease's renewing scheduler, though, retries the
   * release of a lease whose release failed (or that was lost to its local deadline) after its
   * next heartbeat answers: see the class notes.
   */
  release(observation?: unknown): Promise<void> {
    const core = this.#core;
    if (core.releasing) return core.releasing;
    const hooks = core.detach();
    if (core.error) {
      core.releasing = Promise.resolve();
      hooks?.released(this, core.releasing);
      return core.releasing;
    }
    const error = core.markReleased();
    core.releasing = core.callRelease(observation);
    hooks?.released(this, core.releasing);
    core.abortSignal(error);
    return core.releasing;
  }

  /** Releases the lease (for `await using`). */
  [Symbol.asyncDispose](): Promise<void> {
    return this.release();
  }

  /** Internal: the scheduler's view of this lease. @internal */
  get [leaseControl](): LeaseControl {
    return this.#core;
  }
}
