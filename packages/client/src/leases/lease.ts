import { check } from '../core/argument-checks.js';
import { LeaseLostError, type LeaseLostReason } from '../core/errors.js';
import type { LeaseBackend, LeaseRenewal } from './lease-backend.js';
import { checkedSignal } from './checked-signal.js';
import {
  leaseControl,
  type LeaseControl,
  type LeaseHooks,
  type QueuedInfo,
  type RenewalAck,
  type RenewalSource,
} from './lease-control.js';
import { defaultLeaseTiming, LeaseDeadline, type LeaseTiming } from './lease-deadline.js';
import type { LeaseEvents } from './lease-events.js';
import { renewalDurationMs, type LeaseKind, type LeaseStatus } from './lease-kind.js';
import { toLeaseLostError } from './lease-lost-reason.js';
import { rethrowLater, TypedEmitter, type Listener } from './typed-emitter.js';

/** Everything a {@link Lease} is built from; the resource layer fills it from an acquire answer. */
export interface LeaseInit {
  /** Opaque, stable id, as the batch heartbeat reports it. */
  claimId: string;
  /** The secret token (space/task) or `Spooler-Lease` value (spool). */
  token: string;
  /** The grant's fence; `null` while a space claim is queued. */
  fence: number | null;
  /** What the lease guards. */
  kind: LeaseKind;
  /** The per-kind renew and release calls. */
  backend: LeaseBackend;
  /** `held` (default) or `queued` (a space claim waiting for its key). */
  status?: 'held' | 'queued';
  /** The server's expiry (epoch ms), informational only; `null` = never expires. */
  expiresAt?: number | null;
  /** A queued claim's place (1 = next). */
  position?: number;
  /** How many claimants wait for the key. */
  queueDepth?: number;
  /** Spool leases: the queue's lease timeout in ms (`null`: never expires); default: the duration registered first. */
  spoolTimeoutMs?: number | null;
  /** Clock and margins used while no scheduler is attached (default `performance.now()`). */
  timing?: Partial<LeaseTiming>;
  /** Where an error thrown by an event listener goes (default: rethrown on a microtask). */
  onListenerError?: (error: unknown) => void;
}

/**
 * One handle for a space-claim, task-claim or spool lease. Its `signal` aborts, with a
 * {@link LeaseLostError} as reason, the moment the lease can no longer be trusted; pass it to
 * the work the lease guards. A `RenewalScheduler` renews it through the batch heartbeat.
 *
 * The batch heartbeat names exactly the leases the scheduler tracks, so a lease the client
 * gives up on — lost to its local deadline (a stall, failed heartbeats), or whose release
 * failed — is no longer renewed and expires at the end of its term. To free it sooner the
 * scheduler sends ONE best-effort release with its token at once (after a deadline loss) and
 * again after each heartbeat answer, for up to 10 minutes, until one succeeds or answers
 * 404/409/410.
 * @example
 * await using lease = await client.claims.acquire(spaceId, key, { scopeId, holder });
 * await doWork({ signal: lease.signal, fence: lease.fence });
 */
export class Lease implements AsyncDisposable {
  /** Opaque, stable id of the lease. */
  readonly claimId: string;
  /** What the lease guards. */
  readonly kind: LeaseKind;
  readonly #token: string;
  readonly #backend: LeaseBackend;
  /** Created on the first read of `signal` (aborted at once if the lease is already gone). */
  #abort: AbortController | undefined = undefined;
  /** Created on the first subscription: a lease nobody listens to carries no listener storage. */
  #events: TypedEmitter<LeaseEvents> | undefined = undefined;
  readonly #onListenerError: ((error: unknown) => void) | undefined;
  /** The clock in use: the attached scheduler's, kept after detaching so deadlines stay comparable. */
  #clockTiming: LeaseTiming;
  /** The scheduler's view of this lease, and its local deadline: one fixed-shape object, its methods shared. */
  readonly #control: LeaseControl;
  #fence: number | null;
  #status: LeaseStatus;
  #expiresAt: number | null;
  #position: number | undefined;
  #queueDepth: number | undefined;
  #spoolTimeoutMs: number | null | undefined;
  #hooks: LeaseHooks | undefined;
  #error: LeaseLostError | undefined;
  #release: Promise<void> | undefined;

  /** @internal */
  constructor(init: LeaseInit) {
    this.claimId = init.claimId;
    this.kind = init.kind;
    this.#token = init.token;
    this.#fence = init.fence;
    this.#backend = init.backend;
    this.#status = init.status ?? 'held';
    this.#expiresAt = init.expiresAt ?? null;
    this.#position = init.position;
    this.#queueDepth = init.queueDepth;
    this.#spoolTimeoutMs = init.spoolTimeoutMs;
    this.#clockTiming = init.timing === undefined ? defaultLeaseTiming : { ...defaultLeaseTiming, ...init.timing };
    this.#onListenerError = init.onListenerError;
    this.#control = new Lease.#Control(this);
  }

  /** The secret lease token (never logged by the SDK). */
  get token(): string {
    return this.#token;
  }
  /** The grant's fence; `null` while queued (read the key after `granted`, then {@link Lease.updateFence}). */
  get fence(): number | null {
    return this.#fence;
  }
  /** `held`, `queued`, `lost` or `released` — as the local deadline says at the moment it is read. */
  get status(): LeaseStatus {
    this.#checkDeadline();
    return this.#status;
  }
  /** The server's last reported expiry (epoch ms, server clock): informational, never used for deadlines. */
  get expiresAt(): number | null {
    return this.#expiresAt;
  }
  /** A queued claim's place in the key's queue (1 = next). */
  get position(): number | undefined {
    return this.#position;
  }
  /** How many claimants wait for the key, as last reported. */
  get queueDepth(): number | undefined {
    return this.#queueDepth;
  }
  /**
   * Aborted, with a {@link LeaseLostError} reason, as soon as the lease can't be trusted (lost or
   * released). Its `aborted`, `reason` and `throwIfAborted()` check the local deadline when read,
   * so code that runs right after an event-loop stall sees the lease lost even before the
   * scheduler's late timer fires (its `abort` listeners then run at that read).
   */
  get signal(): AbortSignal {
    let controller = this.#abort;
    if (controller === undefined) {
      controller = this.#abort = new AbortController();
      checkedSignal(controller.signal, this.#control);
      if (this.#error !== undefined) controller.abort(this.#error);
    }
    this.#checkDeadline();
    return controller.signal;
  }
  /** Why the lease is gone, once it is (the local deadline is checked when read). */
  get error(): LeaseLostError | undefined {
    this.#checkDeadline();
    return this.#error;
  }
  /** Milliseconds until the local deadline on the monotonic clock (`Infinity`: no deadline; 0 once gone). */
  get remainingMs(): number {
    this.#checkDeadline();
    if (this.#error) return 0;
    return Math.max(0, this.#control.deadline - this.#timing().now());
  }

  /** How long one heartbeat with `ttlSeconds` keeps this lease alive, in ms (`null`: never expires). */
  durationFor(ttlSeconds: number): number | null {
    return renewalDurationMs(this.kind, ttlSeconds, this.#spoolTimeoutMs ?? this.#control.termMs ?? null);
  }

  /** Subscribes to an event; returns the unsubscribe function. */
  on<K extends keyof LeaseEvents>(event: K, listener: Listener<LeaseEvents[K]>): () => void {
    check(typeof listener === 'function', 'listener', 'a function', listener, 'lease.on');
    this.#events ??= new TypedEmitter<LeaseEvents>(this.#onListenerError);
    return this.#events.on(event, listener);
  }

  /** Throws the {@link LeaseLostError} if the lease is gone or its local deadline has passed (checked now). */
  throwIfLost(): void {
    this.#checkDeadline();
    if (this.#error) throw this.#error;
  }

  /**
   * Aborts the lease if `error` (e.g. from a write it guards: 410 `stale_token`, 409
   * `scope_cancelled`/`claim_not_held`/`lease_expired`) says it is gone; returns whether it did.
   */
  reportError(error: unknown): boolean {
    if (this.#error) return false;
    const lost = toLeaseLostError(error, this.claimId);
    if (lost) this.#lose(lost);
    return lost !== undefined;
  }

  /** Records the fence of a grant learned later (a queued claim granted by a heartbeat); never lowers it. */
  updateFence(fence: number): void {
    if (this.#fence === null || fence > this.#fence) this.#fence = fence;
  }

  /**
   * Renews this lease now through its backend and resets the local deadline (counted from when
   * the request was sent). If the server says the lease is gone, the lease is aborted before
   * this rejects with the {@link LeaseLostError}; other errors are rethrown as they are.
   */
  async renew(): Promise<LeaseRenewal> {
    this.throwIfLost();
    const sentAt = this.#timing().now();
    let result: LeaseRenewal;
    try {
      result = await this.#backend.renew();
    } catch (error) {
      const lost = this.#error ? undefined : toLeaseLostError(error, this.claimId);
      if (lost) this.#lose(lost);
      throw lost ?? error;
    }
    // Released or lost while the request was out: a late success cannot resurrect the lease.
    if (this.#error) throw this.#error;
    if (this.kind === 'spool') this.#spoolTimeoutMs = result.durationMs;
    this.#renewed(sentAt, result.durationMs, { expiresAt: result.expiresAt }, 'renew');
    if (this.#error) throw this.#error;
    this.#hooks?.changed(this);
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
    if (this.#release) return this.#release;
    const hooks = this.#hooks;
    this.#hooks = undefined;
    if (this.#error) {
      this.#release = Promise.resolve();
      hooks?.released(this, this.#release);
      return this.#release;
    }
    this.#status = 'released';
    const error = new LeaseLostError('released', this.claimId);
    this.#error = error;
    this.#release = this.#callRelease(observation);
    hooks?.released(this, this.#release);
    this.#abort?.abort(error);
    return this.#release;
  }

  /** Releases the lease (for `await using`). */
  [Symbol.asyncDispose](): Promise<void> {
    return this.release();
  }

  /** Internal: the scheduler's view of this lease. @internal */
  get [leaseControl](): LeaseControl {
    return this.#control;
  }

  async #callRelease(observation: unknown): Promise<void> {
    await (observation === undefined ? this.#backend.release() : this.#backend.release(observation));
  }

  #timing(): LeaseTiming {
    return this.#hooks?.timing ?? this.#clockTiming;
  }

  #checkDeadline(): void {
    if (!this.#error && this.#timing().now() >= this.#control.deadline) this.#loseFor('deadline');
  }

  #loseFor(reason: LeaseLostReason, cause?: unknown): void {
    this.#lose(new LeaseLostError(reason, this.claimId, cause === undefined ? {} : { cause }));
  }

  /** Marks the lease lost: scheduler first (bookkeeping), then the signal, then `lost` listeners. */
  #lose(error: LeaseLostError): void {
    if (this.#error) return;
    this.#error = error;
    this.#status = 'lost';
    const hooks = this.#hooks;
    this.#hooks = undefined;
    hooks?.lost(this, error.reason);
    this.#abort?.abort(error);
    if (this.#backend.lost !== undefined) {
      // The backend's own reaction (a space claim's cleanup release) comes first, as a first listener would.
      try {
        this.#backend.lost(error);
      } catch (thrown) {
        (this.#onListenerError ?? rethrowLater)(thrown);
      }
    }
    this.#events?.emit('lost', error);
  }

  #renewed(sentAt: number, durationMs: number | null, ack: RenewalAck, via: RenewalSource): void {
    const timing = this.#timing();
    if (this.#control.record(sentAt, durationMs, timing)) {
      this.#expiresAt = ack.expiresAt ?? (durationMs === null ? null : this.#expiresAt);
      this.#queueDepth = ack.queueDepth ?? this.#queueDepth;
    }
    const remainingMs = this.#control.deadline - timing.now();
    if (remainingMs <= 0) return this.#loseFor('deadline');
    if (via === 'register') return;
    if (this.#status === 'queued') {
      this.#status = 'held';
      this.#position = undefined;
      if (this.#listens('granted')) this.#events?.emit('granted', { expiresAt: this.#expiresAt });
      return;
    }
    if (this.#listens('renewed')) {
      this.#events?.emit('renewed', { via, durationMs: this.#control.termMs ?? null, expiresAt: this.#expiresAt, remainingMs });
    }
  }

  /** Whether `event` has a listener (payloads are only built for listeners). */
  #listens(event: keyof LeaseEvents): boolean {
    return this.#events !== undefined && this.#events.listenerCount(event) > 0;
  }

  /**
   * The scheduler's view of a lease, which also keeps its local deadline: a class declared in the
   * lease's body (so it reaches the lease's private state), hence one fixed-shape object per
   * lease with shared methods.
   */
  static readonly #Control = class extends LeaseDeadline implements LeaseControl {
    generation = 0;
    seenIn = 0;
    readonly #lease: Lease;

    constructor(lease: Lease) {
      super();
      this.#lease = lease;
    }

    get active(): boolean {
      return this.#lease.#error === undefined;
    }

    get hooks(): LeaseHooks | undefined {
      return this.#lease.#hooks;
    }

    attach(hooks: LeaseHooks | undefined): void {
      const lease = this.#lease;
      if (hooks === undefined) lease.#hooks = undefined;
      else if (lease.#error === undefined) {
        lease.#hooks = hooks;
        lease.#clockTiming = hooks.timing;
      }
    }

    renewed(sentAt: number, durationMs: number | null, ack: RenewalAck, via: RenewalSource): void {
      const lease = this.#lease;
      if (lease.#error === undefined) lease.#renewed(sentAt, durationMs, ack, via);
    }

    queued(sentAt: number, durationMs: number | null, info: QueuedInfo): void {
      const lease = this.#lease;
      if (lease.#error !== undefined) return;
      const timing = lease.#timing();
      if (this.record(sentAt, durationMs, timing)) {
        lease.#expiresAt = info.expiresAt ?? lease.#expiresAt;
        lease.#position = info.position ?? lease.#position;
        lease.#queueDepth = info.queueDepth ?? lease.#queueDepth;
      }
      if (this.deadline <= timing.now()) return lease.#loseFor('deadline');
      if (lease.#listens('queued')) lease.#events?.emit('queued', { position: lease.#position, queueDepth: lease.#queueDepth });
    }

    atRisk(now: number): void {
      const lease = this.#lease;
      if (lease.#error !== undefined || this.atRiskReported) return;
      this.atRiskReported = true;
      if (lease.#listens('atRisk')) lease.#events?.emit('atRisk', { remainingMs: Math.max(0, this.deadline - now) });
    }

    lose(reason: LeaseLostReason, cause?: unknown): void {
      this.#lease.#loseFor(reason, cause);
    }

    checkDeadline(): void {
      this.#lease.#checkDeadline();
    }

    async releaseAbandoned(): Promise<void> {
      const backend = this.#lease.#backend;
      await (backend.releaseAbandoned ? backend.releaseAbandoned() : backend.release());
    }
  };
}

