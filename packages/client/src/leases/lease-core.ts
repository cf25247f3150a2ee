import { LeaseLostError, type LeaseLostReason } from '../core/errors/index.js';
import { checkedSignal } from './checked-signal.js';
import type { LeaseBackend, LeaseRenewal } from './lease-backend.js';
import type { ControlledLease, LeaseControl, LeaseHooks, QueuedInfo, RenewalAck, RenewalSource } from './lease-control.js';
import { defaultLeaseTiming, LeaseDeadline, type LeaseTiming } from './lease-deadline.js';
import type { LeaseEvents } from './lease-events.js';
import type { LeaseInit } from './lease-init.js';
import type { LeaseStatus } from './lease-kind.js';
import { toLeaseLostError } from './lease-lost-reason.js';
import { leaseTermFor, type LeaseTerm } from './lease-term.js';
import { rethrowLater, TypedEmitter, type Listener } from './typed-emitter.js';

/**
 * Internal: the state of one lease behind its public `Lease` handle — status, fence, loss, the
 * local deadline (it IS the deadline bookkeeping) and the events — and the control surface its
 * scheduler drives. One fixed-shape object per lease.
 */
export class LeaseCore extends LeaseDeadline implements LeaseControl {
  generation = 0;
  seenIn = 0;
  /** The handle the scheduler is told about. */
  readonly lease: ControlledLease;
  readonly claimId: string;
  readonly backend: LeaseBackend;
  readonly term: LeaseTerm;
  fence: number | null;
  status: LeaseStatus;
  expiresAt: number | null;
  position: number | undefined;
  queueDepth: number | undefined;
  error: LeaseLostError | undefined = undefined;
  releasing: Promise<void> | undefined = undefined;
  #hooks: LeaseHooks | undefined = undefined;
  /** Created on the first read of `signal` (aborted at once if the lease is already gone). */
  #abort: AbortController | undefined = undefined;
  /** Created on the first subscription: a lease nobody listens to carries no listener storage. */
  #events: TypedEmitter<LeaseEvents> | undefined = undefined;
  readonly #onListenerError: ((error: unknown) => void) | undefined;
  /** The clock in use: the attached scheduler's, kept after detaching so deadlines stay comparable. */
  #clockTiming: LeaseTiming;

  constructor(lease: ControlledLease, init: LeaseInit) {
    super();
    this.lease = lease;
    this.claimId = init.claimId;
    this.backend = init.backend;
    this.term = leaseTermFor(init.kind, init.spoolTimeoutMs);
    this.fence = init.fence;
    this.status = init.status ?? 'held';
    this.expiresAt = init.expiresAt ?? null;
    this.position = init.position;
    this.queueDepth = init.queueDepth;
    this.#clockTiming = init.timing === undefined ? defaultLeaseTiming : { ...defaultLeaseTiming, ...init.timing };
    this.#onListenerError = init.onListenerError;
  }

  get active(): boolean {
    return this.error === undefined;
  }

  get hooks(): LeaseHooks | undefined {
    return this.#hooks;
  }

  /** The clock and margins in use. */
  timing(): LeaseTiming {
    return this.#hooks?.timing ?? this.#clockTiming;
  }

  /** The lease's signal, created on first use (checked against the local deadline when read). */
  signal(): AbortSignal {
    let controller = this.#abort;
    if (controller === undefined) {
      controller = this.#abort = new AbortController();
      checkedSignal(controller.signal, this);
      if (this.error !== undefined) controller.abort(this.error);
    }
    this.checkDeadline();
    return controller.signal;
  }

  on<K extends keyof LeaseEvents>(event: K, listener: Listener<LeaseEvents[K]>): () => void {
    this.#events ??= new TypedEmitter<LeaseEvents>(this.#onListenerError);
    return this.#events.on(event, listener);
  }

  attach(hooks: LeaseHooks | undefined): void {
    if (hooks === undefined) this.#hooks = undefined;
    else if (this.error === undefined) {
      this.#hooks = hooks;
      this.#clockTiming = hooks.timing;
    }
  }

  /** Detaches the scheduler and returns its hooks (a release or a loss: it stops renewing now). */
  detach(): LeaseHooks | undefined {
    const hooks = this.#hooks;
    this.#hooks = undefined;
    return hooks;
  }

  checkDeadline(): void {
    if (this.error === undefined && this.timing().now() >= this.deadline) this.lose('deadline');
  }

  lose(reason: LeaseLostReason, cause?: unknown): void {
    this.loseWith(new LeaseLostError(reason, this.claimId, cause === undefined ? {} : { cause }));
  }

  /** Aborts the lease if `error` says it is gone; returns whether it did. */
  report(error: unknown): boolean {
    if (this.error) return false;
    const lost = toLeaseLostError(error, this.claimId);
    if (lost) this.loseWith(lost);
    return lost !== undefined;
  }

  /** Marks the lease lost: scheduler first (bookkeeping), then the signal, then `lost` listeners. */
  loseWith(error: LeaseLostError): void {
    if (this.error) return;
    this.error = error;
    this.status = 'lost';
    this.detach()?.lost(this.lease, error.reason);
    this.#abort?.abort(error);
    if (this.backend.lost !== undefined) {
      // The backend's own reaction (a space claim's cleanup release) comes first, as a first listener would.
      try {
        this.backend.lost(error);
      } catch (thrown) {
        (this.#onListenerError ?? rethrowLater)(thrown);
      }
    }
    this.#events?.emit('lost', error);
  }

  /** Marks the lease released by its holder; returns the `released` error its signal will abort with. */
  markReleased(): LeaseLostError {
    this.status = 'released';
    const error = new LeaseLostError('released', this.claimId);
    this.error = error;
    return error;
  }

  /** Tells the server (through the backend) that the holder released the lease. */
  async callRelease(observation: unknown): Promise<void> {
    await (observation === undefined ? this.backend.release() : this.backend.release(observation));
  }

  /** Aborts the lease's signal (if anyone read it) with `error`. */
  abortSignal(error: LeaseLostError): void {
    this.#abort?.abort(error);
  }

  /** Records an explicit renewal sent at `sentAt` (see `Lease.renew`). */
  renewedExplicitly(sentAt: number, result: LeaseRenewal): void {
    this.term.renewed(result.durationMs);
    this.renewed(sentAt, result.durationMs, { expiresAt: result.expiresAt }, 'renew');
  }

  renewed(sentAt: number, durationMs: number | null, ack: RenewalAck, via: RenewalSource): void {
    if (this.error !== undefined) return;
    const timing = this.timing();
    if (this.record(sentAt, durationMs, timing)) {
      this.expiresAt = ack.expiresAt ?? (durationMs === null ? null : this.expiresAt);
      this.queueDepth = ack.queueDepth ?? this.queueDepth;
    }
    const remainingMs = this.deadline - timing.now();
    if (remainingMs <= 0) return this.lose('deadline');
    if (via === 'register') return;
    if (this.status === 'queued') {
      this.status = 'held';
      this.position = undefined;
      if (this.#listens('granted')) this.#events?.emit('granted', { expiresAt: this.expiresAt });
      return;
    }
    if (this.#listens('renewed')) {
      this.#events?.emit('renewed', { via, durationMs: this.termMs ?? null, expiresAt: this.expiresAt, remainingMs });
    }
  }

  queued(sentAt: number, durationMs: number | null, info: QueuedInfo): void {
    if (this.error !== undefined) return;
    const timing = this.timing();
    if (this.record(sentAt, durationMs, timing)) {
      this.expiresAt = info.expiresAt ?? this.expiresAt;
      this.position = info.position ?? this.position;
      this.queueDepth = info.queueDepth ?? this.queueDepth;
    }
    if (this.deadline <= timing.now()) return this.lose('deadline');
    if (this.#listens('queued')) this.#events?.emit('queued', { position: this.position, queueDepth: this.queueDepth });
  }

  atRisk(now: number): void {
    if (this.error !== undefined || this.atRiskReported) return;
    this.atRiskReported = true;
    if (this.#listens('atRisk')) this.#events?.emit('atRisk', { remainingMs: Math.max(0, this.deadline - now) });
  }

  keyForgotten(): Promise<void> {
    return this.backend.keyForgotten?.() ?? Promise.resolve();
  }

  async releaseAbandoned(): Promise<void> {
    await (this.backend.releaseAbandoned ? this.backend.releaseAbandoned() : this.backend.release());
  }

  /** Whether `event` has a listener (payloads are only built for listeners). */
  #listens(event: keyof LeaseEvents): boolean {
    return this.#events !== undefined && this.#events.listenerCount(event) > 0;
  }
}
