import type { Logger } from '../../core/logger.js';
import type { LeaseLostReason } from '../../core/errors/index.js';
import type { LeaseKind } from '../lease-kind.js';
import { TypedEmitter, type Listener } from '../typed-emitter.js';
import type { HeartbeatFailureEvent, RenewalSchedulerEvents } from './renewal-scheduler-options.js';
import { emptyRenewalStats, type RenewalStats } from './renewal-stats.js';
import type { SchedulerObserver } from './scheduler-observer.js';

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
