/**
 * What the scheduler tells: its counters (`stats`), the observer the telemetry adapter plugs in, and
 * the events and log lines of a tick.
 */
import type { LeaseLostReason } from '../../core/errors/index.js';
import type { LeaseKind } from '../lease-kind.js';
import type { Logger } from '../../core/logger.js';
import { TypedEmitter, type Listener } from '../typed-emitter.js';

/** Payload of the scheduler's `stall` event. */
export interface StallEvent {
  /** How long the event loop had not run when it was seen again, in ms: at least the stall, at most a tenth of `thresholdMs` more. */
  delayMs: number;
  /** The gap that counts as a stall: a third of the shortest registered lease. */
  thresholdMs: number;
  /** Leases aborted with reason `deadline` because their local deadline passed during the stall. */
  expired: number;
}

/** Payload of the scheduler's `heartbeat` event (one per usable answer). */
export interface HeartbeatEvent {
  /** Acks in the answer. */
  results: number;
  /** Leases renewed (held or queued acks applied). */
  renewed: number;
  /** Leases lost through this answer (reported `lost`, or missing from it). */
  lost: number;
  /** Time from send to answer, in ms. */
  roundTripMs: number;
}

/** Payload of the scheduler's `failure` event. */
export interface HeartbeatFailureEvent {
  /** What the heartbeat call rejected with. */
  error: unknown;
  /** Whether `isTransient` judged it transient (non-transient ones are retried too, until deadlines). */
  transient: boolean;
  /** Consecutive failures so far. */
  attempt: number;
  /** Delay before the next attempt, in ms. */
  retryInMs: number;
}

/** Every event a `RenewalScheduler` emits, by name. */
export interface RenewalSchedulerEvents {
  /** The event loop stalled for longer than a third of the shortest lease. */
  stall: StallEvent;
  /** A heartbeat answer was applied. */
  heartbeat: HeartbeatEvent;
  /** A heartbeat attempt failed; a retry is scheduled. */
  failure: HeartbeatFailureEvent;
}

/** The loss reasons a scheduler counts (a release is not a loss). */
export type CountedLossReason = Exclude<LeaseLostReason, 'released'>;

/** What a `RenewalScheduler` has done since it was created. */
export interface RenewalStats {
  /** Leases registered right now. */
  leases: number;
  /** Batch heartbeats sent (retries included). */
  heartbeatsSent: number;
  /** Heartbeats answered with a usable 200. */
  heartbeatsSucceeded: number;
  /** Per-lease renewals carried by those heartbeats: the single-lease requests they replaced. */
  leasesRenewed: number;
  /** Heartbeats that failed (rejected, timed out or malformed). */
  failures: number;
  /** Heartbeats sent as a retry after a failure. */
  retries: number;
  /** Event-loop stalls detected. */
  stalls: number;
  /** Leases lost while registered, by how the loss was detected. */
  lost: Record<CountedLossReason, number>;
}

/** A fresh, all-zero stats record. */
export function emptyRenewalStats(): RenewalStats {
  return {
    leases: 0,
    heartbeatsSent: 0,
    heartbeatsSucceeded: 0,
    leasesRenewed: 0,
    failures: 0,
    retries: 0,
    stalls: 0,
    lost: { lost: 0, deadline: 0, stale: 0, cancelled: 0, expired: 0 },
  };
}

/**
 * Internal: what a renewal scheduler reports as it works, for metrics (the client's
 * OpenTelemetry adapter implements it). Every method is called synchronously and must not throw.
 */
export interface SchedulerObserver {
  /** A heartbeat naming `leases` claim ids was sent (a retry when `retry`). */
  heartbeatSent(leases: number, retry: boolean): void;
  /** A heartbeat ended after `durationMs`: answered (`ok`) or failed. */
  heartbeatEnded(durationMs: number, ok: boolean): void;
  /** `count` leases were renewed (by a heartbeat answer, or an explicit renew). */
  renewed(count: number, via: 'heartbeat' | 'renew'): void;
  /** A registered lease of `kind` was lost. */
  lost(kind: LeaseKind, reason: CountedLossReason): void;
}

/**
 * Everything one scheduler tells the outside about its work, in one place: the counters
 * (`stats()`), the events (`on()`), the log lines and the metrics observer.
 */
export class SchedulerReports {
  readonly #stats = emptyRenewalStats();
  readonly #events = new TypedEmitter<RenewalSchedulerEvents>();
  readonly #logger: Partial<Logger>;
  readonly #observer: SchedulerObserver | undefined;

  constructor(logger: Partial<Logger> | undefined, observer: SchedulerObserver | undefined) {
    this.#logger = logger ?? {};
    this.#observer = observer;
  }

  /** Subscribes to an event; returns the unsubscribe function. */
  on<K extends keyof RenewalSchedulerEvents>(event: K, listener: Listener<RenewalSchedulerEvents[K]>): () => void {
    return this.#events.on(event, listener);
  }

  /** The counters, with `leases` registered right now. */
  snapshot(leases: number): RenewalStats {
    return { ...this.#stats, leases, lost: { ...this.#stats.lost } };
  }

  /** Writes a log line; a throwing logger never breaks renewals. */
  log(level: keyof Logger, message: string, fields: Record<string, unknown>): void {
    try {
      this.#logger[level]?.(message, fields);
    } catch {
      // A throwing logger must never break renewals.
    }
  }

  /** The event loop stalled for `delayMs`. */
  stall(delayMs: number, thresholdMs: number, expired: number): void {
    this.#stats.stalls += 1;
    this.log('warn', 'Event loop stalled longer than a third of the shortest lease.', { delayMs, thresholdMs, expired });
    this.#events.emit('stall', { delayMs, thresholdMs, expired });
  }

  /** A heartbeat naming `leases` claim ids was sent. */
  sent(leases: number, retry: boolean): void {
    this.#stats.heartbeatsSent += 1;
    if (retry) this.#stats.retries += 1;
    this.#observer?.heartbeatSent(leases, retry);
  }

  /** A usable answer with `results` acks was applied after `roundTripMs`. */
  answered(roundTripMs: number, results: number, renewed: number, lost: number): void {
    this.#stats.heartbeatsSucceeded += 1;
    this.#stats.leasesRenewed += renewed;
    this.#observer?.heartbeatEnded(roundTripMs, true);
    if (renewed > 0) this.#observer?.renewed(renewed, 'heartbeat');
    this.#events.emit('heartbeat', { results, renewed, lost, roundTripMs });
  }

  /** A heartbeat failed after `durationMs`. */
  failed(durationMs: number): void {
    this.#stats.failures += 1;
    this.#observer?.heartbeatEnded(durationMs, false);
  }

  /** The retry after a failure is scheduled. */
  retrying(failure: HeartbeatFailureEvent): void {
    this.#events.emit('failure', failure);
  }

  /** A registered lease was renewed outside this scheduler's heartbeats: an explicit `renew()`, or a raw heartbeat. */
  renewedOutside(via: 'renew' | 'heartbeat'): void {
    this.#observer?.renewed(1, via);
  }

  /** A registered lease was lost (or released: then nothing is counted). */
  lost(claimId: string, kind: LeaseKind, reason: LeaseLostReason): void {
    if (reason !== 'released') {
      this.#stats.lost[reason] += 1;
      this.#observer?.lost(kind, reason);
    }
    this.log('warn', 'Lease lost; its signal is aborted.', { claimId, kind, reason });
  }
}
