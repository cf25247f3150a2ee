import type { CallOptions } from '../resources/call-options.js';
import type { LeaseLostError } from '../core/errors/index.js';

/** What one explicit renewal granted: its duration (`null`: never expires) and, if known, the server's new expiry. */
export interface LeaseRenewal {
  /** The granted duration in ms, counted by the caller from when the renew request was sent; `null` = never expires. */
  durationMs: number | null;
  /** The new expiry by the server clock (epoch ms), informational only. */
  expiresAt?: number;
}

/**
 * The per-kind calls behind a {@link Lease}: the resource layer implements one per space claim,
 * task claim or spool lease. Both may reject with the SDK's API errors; the lease maps them.
 */
export interface LeaseBackend {
  /** Renews this one lease now (space: renew; task: renew with If-Match; spool: renew). */
  renew(): Promise<LeaseRenewal>;
  /** Releases this lease on the server (space/task: release; spool: nack or ack as the backend decides). */
  release(observation?: unknown): Promise<void>;
  /**
   * Internal: the lease was lost (never called for a release): after its signal aborted, before
   * its `lost` listeners run. A throw goes where listener errors go. @internal
   */
  lost?(error: LeaseLostError): void;
  /**
   * Internal: ONE release attempt (no retries) of a lease this client gave up on (lost to its
   * local deadline, or whose release failed) while the server still reports it held or queued.
   * Without it the scheduler calls `release()`. @internal
   */
  releaseAbandoned?(): Promise<void>;
  /**
   * Internal: resolves once the operation key of the lease's acquire is forgotten, after the
   * lease ended (at once if it has no key, or has not ended). A replayed acquire whose lease
   * already ended awaits it before acquiring afresh. @internal
   */
  keyForgotten?(): Promise<void>;
}

/** What every lease's backend needs from the client when the lease ends. */
export interface LeaseEndings {
  /** Call options of a release: normal while the client runs; one short attempt while it closes. */
  releaseOptions(): CallOptions;
  /**
   * Forgets the stored idempotency key of the operation that created a lease, once it ended
   * (released, completed, lost): a restart DURING the lease replays its acquire, a later one under
   * the same `operationId` is a new operation. Never throws.
   */
  forgetOperation(operationId: string | undefined): Promise<void>;
}

/**
 * The base of every kind's backend: a release settles the lease on the server and then forgets
 * the operation key of its acquire (also when the settle fails); a loss forgets it too; a lease
 * the client gave up on gets one settle attempt without retries. A kind implements `renew` and
 * `settle` (and may react to a loss in `onLost`).
 */
export abstract class SettlingBackend implements LeaseBackend {
  readonly #endings: LeaseEndings;
  readonly #operationId: string | undefined;
  #forgetting: Promise<void> | undefined;

  constructor(endings: LeaseEndings, operationId: string | undefined) {
    this.#endings = endings;
    this.#operationId = operationId;
  }

  abstract renew(): Promise<LeaseRenewal>;

  /** Ends the lease on the server (release, ack or nack) with these call options. */
  protected abstract settle(options: CallOptions, observation?: unknown): Promise<void>;

  /** A loss, after the key is forgotten (default: nothing more). */
  protected onLost(_error: LeaseLostError): void {}

  async release(observation?: unknown): Promise<void> {
    try {
      await this.settle(this.#endings.releaseOptions(), observation);
    } finally {
      await this.#forget();
    }
  }

  /** One settle attempt (no retries) of a lease this client gave up on (the scheduler retries it after each heartbeat answer). */
  async releaseAbandoned(): Promise<void> {
    await this.settle({ maxRetries: 0 });
  }

  lost(error: LeaseLostError): void {
    void this.#forget();
    this.onLost(error);
  }

  keyForgotten(): Promise<void> {
    return this.#forgetting ?? Promise.resolve();
  }

  /** Forgets the operation key once (a loss and a release after it share the one deletion). */
  #forget(): Promise<void> {
    this.#forgetting ??= this.#endings.forgetOperation(this.#operationId);
    return this.#forgetting;
  }
}
