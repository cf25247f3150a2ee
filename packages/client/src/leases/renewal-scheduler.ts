import { AbortError, TimeoutError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { ClientClosedError } from '../closable-transport.js';
import { InvalidArgumentError } from '../core/invalid-argument-error.js';
import { LeaseholdError } from '../core/leasehold-error.js';
import { UnexpectedResponseError } from '../core/unexpected-response-error.js';
import { AbandonedLeases, saysGone } from './abandoned-leases.js';
import { applyHeartbeatAnswer } from './apply-heartbeat-answer.js';
import { MAX_CLAIM_IDS_PER_HEARTBEAT, sendNamedHeartbeat } from './heartbeat-batches.js';
import { HeartbeatFlight } from './heartbeat-flight.js';
import type { Lease } from './lease.js';
import { leaseControl, type LeaseHooks } from './lease-control.js';
import { defaultDriftMarginMs } from './lease-deadline.js';
import { spaceClaimDurationMs } from './lease-kind.js';
import { LeaseRegistry } from './lease-registry.js';
import { heartbeatRetryDelayMs, type BackoffSettings } from './heartbeat-backoff.js';
import type {
  HeartbeatResponse,
  RenewalSchedulerEvents,
  RenewalSchedulerOptions,
  SendHeartbeat,
} from './renewal-scheduler-options.js';
import { emptyRenewalStats, type RenewalStats } from './renewal-stats.js';
import { isTransientHeartbeatError, retryAfterMsOf, statusOf } from './transient-error.js';
import { TypedEmitter, type Listener } from './typed-emitter.js';
import { globalTimers, WakeTimer } from './wake-timer.js';

/** How long a lease this client gave up on is kept for a release attempt. */
export { ABANDONED_LEASE_WATCH_MS } from './abandoned-leases.js';

/**
 * Renews every registered lease with ONE batch heartbeat per cadence, on ONE `unref`'d timer,
 * with at most one heartbeat in flight — whether it holds 1 lease or 10 000. The heartbeat names
 * exactly the registered leases (`claimIds`, split into requests of at most 10 000 ids), so a
 * lease of the session that this client does not track is never kept alive. Deadlines live on
 * a monotonic clock, counted from when the renewing request was sent, minus a drift margin; a
 * lease whose deadline passes is aborted with reason `deadline` even if the server is silent.
 * @example
 * const scheduler = new RenewalScheduler({ sendHeartbeat, holderSession });
 * const sentAt = scheduler.now();
 * const lease = new Lease({ ...fromAcquireAnswer, backend });
 * scheduler.register(lease, { durationMs: 30_000, sentAt });
 */
export class RenewalScheduler {
  readonly #send: SendHeartbeat;
  readonly #session: string;
  readonly #ttl: number;
  readonly #clock: () => number;
  readonly #random: () => number;
  readonly #jitter: number;
  readonly #isTransient: (error: unknown) => boolean;
  readonly #retry: BackoffSettings;
  readonly #attemptTimeoutMs: number | undefined;
  readonly #logger: Partial<Logger>;
  readonly #events = new TypedEmitter<RenewalSchedulerEvents>();
  readonly #hooks: LeaseHooks;
  readonly #leases = new LeaseRegistry();
  readonly #stats = emptyRenewalStats();
  /** Leases given up on (local deadline passed, or release failed): released once the server answers. */
  readonly #abandoned: AbandonedLeases;
  readonly #maxIds: number;
  readonly #timer: WakeTimer;
  #nextHeartbeatAt = Infinity;
  #flight: HeartbeatFlight | undefined;
  /** Callers awaiting this scheduler (a queued acquire waiting for its grant): the timer is then ref'd. */
  #holds = 0;
  #sequence = 0;
  #failures = 0;
  #closing: Promise<void> | undefined;

  constructor(options: RenewalSchedulerOptions) {
    const ttl = options.ttlSeconds ?? 30;
    if (!(ttl > 0 && Number.isFinite(ttl))) throw new InvalidArgumentError('ttlSeconds', `RenewalScheduler: ttlSeconds must be a positive number; got ${String(ttl)}.`);
    if (!options.holderSession) throw new InvalidArgumentError('holderSession', 'RenewalScheduler: holderSession is required.');
    if (typeof options.sendHeartbeat !== 'function') throw new InvalidArgumentError('sendHeartbeat', 'RenewalScheduler: sendHeartbeat must be a function.');
    this.#send = options.sendHeartbeat;
    this.#session = options.holderSession;
    this.#ttl = ttl;
    const now = options.now;
    this.#clock = now ? () => now() : () => performance.now();
    this.#random = options.random ?? Math.random;
    this.#jitter = options.jitter ?? 0.1;
    this.#isTransient = options.isTransient ?? isTransientHeartbeatError;
    this.#retry = { initialDelayMs: 500, maxDelayMs: 30_000, minDelayMs: 100, ...options.retry };
    this.#attemptTimeoutMs = options.attemptTimeoutMs;
    this.#timer = new WakeTimer(options.timers ?? globalTimers, this.#clock, (lateByMs) => this.#tick(lateByMs));
    this.#logger = options.logger ?? {};
    this.#abandoned = new AbandonedLeases((level, message, fields) => this.#log(level, message, fields));
    this.#maxIds = options.maxClaimIdsPerHeartbeat ?? MAX_CLAIM_IDS_PER_HEARTBEAT;
    const driftMarginMs = options.driftMarginMs ?? defaultDriftMarginMs;
    this.#hooks = {
      timing: { now: this.#clock, driftMarginMs, atRiskLeadMs: (d) => (d / 3) * (1 + this.#jitter) },
      changed: (lease) => {
        this.#note(lease, 1);
        this.#arm();
      },
      lost: (lease, reason) => {
        if (!this.#leases.has(lease)) return;
        if (reason !== 'released') this.#stats.lost[reason] += 1;
        this.#log('warn', 'Lease lost; its signal is aborted.', { claimId: lease.claimId, reason });
        this.#forget(lease);
        // Lost only locally: the server may still hold it until its term ends; release it now.
        if (reason === 'deadline') this.#abandon(lease, true);
      },
      released: (lease, done) => {
        this.#forget(lease);
        done.catch((error: unknown) => {
          if (!saysGone(error)) this.#abandon(lease, false);
        });
      },
    };
  }

  /** The scheduler's monotonic clock: read it just before sending an acquire, and pass it as `sentAt`. */
  now(): number {
    return this.#clock();
  }

  /** How many leases are registered. */
  get size(): number {
    return this.#leases.size;
  }

  /**
   * Starts renewing `lease` through the batch heartbeat. `durationMs` is what the acquire (or
   * receive) granted (`null`: never expires), `sentAt` when that request was sent, on {@link now}.
   */
  register(lease: Lease, grant: { durationMs: number | null; sentAt: number }): void {
    if (this.#closing) throw new ClientClosedError();
    const control = lease[leaseControl];
    if (!control.active) return;
    const existing = this.#leases.get(lease.claimId);
    if (existing !== undefined && existing !== lease) {
      throw new LeaseholdError(`Another lease with claimId ${lease.claimId} is already registered.`);
    }
    if (existing === undefined) {
      // The same claim adopted again (a replayed acquire): no longer abandoned.
      this.#abandoned.delete(lease.claimId);
      if (control.hooks !== undefined && control.hooks !== this.#hooks) {
        throw new LeaseholdError(`Lease ${lease.claimId} is registered with another scheduler.`);
      }
      control.attach(this.#hooks);
      this.#leases.add(lease);
    }
    control.renewed(grant.sentAt, grant.durationMs, {}, 'register');
    if (!control.active) return;
    this.#note(lease, this.#nextHeartbeatAt === Infinity ? this.#jitterFactor() : 1);
    if (this.#nextHeartbeatAt === Infinity) this.#nextHeartbeatAt = this.now() + this.#idleCadenceMs();
    this.#arm();
  }

  /**
   * Keeps the process alive while a caller awaits what only this scheduler will tell it (a
   * queued claim's grant), as a pending request would; idle renewal alone never does. Returns
   * the function that ends the hold (idempotent).
   */
  hold(): () => void {
    let held = true;
    this.#holds += 1;
    this.#timer.keepAlive(true);
    return () => {
      if (!held) return;
      held = false;
      this.#holds -= 1;
      if (this.#holds === 0) this.#timer.keepAlive(false);
    };
  }

  /** Stops renewing `lease` without releasing or aborting it; returns whether it was registered. */
  unregister(lease: Lease): boolean {
    return this.#forget(lease);
  }

  /** Subscribes to `stall`, `heartbeat` or `failure`; returns the unsubscribe function. */
  on<K extends keyof RenewalSchedulerEvents>(event: K, listener: Listener<RenewalSchedulerEvents[K]>): () => void {
    return this.#events.on(event, listener);
  }

  /** A snapshot of the counters. */
  stats(): RenewalStats {
    return { ...this.#stats, leases: this.#leases.size, lost: { ...this.#stats.lost } };
  }

  /**
   * Stops renewing: clears the timer, aborts a heartbeat in flight and forgets every lease
   * without aborting it (its `throwIfLost()` still checks the deadline). With `releaseLeases`,
   * also releases each one (failures are logged). Idempotent.
   */
  close(options: { releaseLeases?: boolean } = {}): Promise<void> {
    if (this.#closing) return this.#closing;
    const leases = this.#leases.drain();
    for (const lease of leases) lease[leaseControl].attach(undefined);
    this.#abandoned.clear();
    this.#idle();
    this.#closing = options.releaseLeases ? this.#releaseAll(leases) : Promise.resolve();
    return this.#closing;
  }

  async #releaseAll(leases: Lease[]): Promise<void> {
    const outcomes = await Promise.allSettled(leases.map((lease) => lease.release()));
    outcomes.forEach((outcome, i) => {
      if (outcome.status === 'rejected') {
        this.#log('warn', 'Lease release failed while closing.', { claimId: leases[i]?.claimId, status: statusOf(outcome.reason) });
      }
    });
  }

  #forget(lease: Lease): boolean {
    if (!this.#leases.delete(lease)) return false;
    lease[leaseControl].attach(undefined);
    if (this.#leases.size === 0) this.#idle();
    return true;
  }

  /** No lease left (or closed): zero timers, nothing in flight. */
  #idle(): void {
    this.#timer.clear();
    const flight = this.#flight;
    this.#flight = undefined;
    flight?.abandon(new AbortError('Heartbeat cancelled: no lease left to renew.'));
    this.#nextHeartbeatAt = Infinity;
    this.#leases.resetBounds();
    this.#failures = 0;
  }

  /** Covers a lease whose deadline changed: bounds, and an earlier heartbeat if it is due sooner. */
  #note(lease: Lease, factor: number): void {
    const deadline = lease[leaseControl];
    this.#leases.note(deadline);
    this.#nextHeartbeatAt = Math.min(this.#nextHeartbeatAt, deadline.renewalDueAt(factor));
  }

  #arm(): void {
    if (this.#closing || this.#leases.size === 0) return this.#timer.clear();
    const flight = this.#flight;
    const { earliestDeadline, earliestAtRisk } = this.#leases;
    this.#timer.wakeBy(Math.min(earliestDeadline, earliestAtRisk, flight ? flight.timeoutAt : this.#nextHeartbeatAt));
  }

  #tick(lateByMs: number): void {
    if (this.#closing || this.#leases.size === 0) return;
    const now = this.now();
    const thresholdMs = this.#cadenceMs();
    // Leases whose local deadline passed (during a stall, say) are aborted before anything else.
    const { lost: expired } = this.#leases.scan(now, { atRisk: true });
    if (lateByMs > thresholdMs) this.#reportStall(lateByMs, thresholdMs, expired);
    const flight = this.#flight;
    if (flight && now >= flight.timeoutAt) this.#timeOut(flight, now);
    if (!this.#closing && !this.#flight && this.#leases.size > 0 && now >= this.#nextHeartbeatAt) this.#sendHeartbeat(now);
    this.#arm();
  }

  #reportStall(delayMs: number, thresholdMs: number, expired: number): void {
    this.#stats.stalls += 1;
    this.#log('warn', 'Event loop stalled longer than a third of the shortest lease.', { delayMs, thresholdMs, expired });
    this.#events.emit('stall', { delayMs, thresholdMs, expired });
  }

  #sendHeartbeat(now: number): void {
    const flight = new HeartbeatFlight({
      sequence: ++this.#sequence,
      generation: this.#leases.generation,
      sentAt: now,
      timeoutAt: now + (this.#attemptTimeoutMs ?? Math.max(1000, this.#cadenceMs())),
    });
    this.#flight = flight;
    this.#nextHeartbeatAt = Infinity;
    this.#stats.heartbeatsSent += 1;
    if (this.#failures > 0) this.#stats.retries += 1;
    const claimIds = this.#leases.claimIds();
    const body = { ttl: this.#ttl, holderSession: this.#session };
    flight.start((signal) => sendNamedHeartbeat((named) => this.#send(named, signal), body, claimIds, this.#maxIds), {
      answer: (response) => this.#onAnswer(flight, response),
      error: (error) => this.#onSettled(flight, () => this.#failed(error, this.now())),
      bug: (error) => {
        this.#log('error', 'Lease renewal bookkeeping failed.', { error: String(error) });
        this.#arm();
      },
    });
  }

  #timeOut(flight: HeartbeatFlight, now: number): void {
    this.#flight = undefined;
    const error = new TimeoutError('attempt', flight.timeoutAt - flight.sentAt);
    flight.abandon(error);
    this.#failed(error, now);
  }

  #onSettled(flight: HeartbeatFlight, handle: () => void): void {
    if (this.#closing || this.#flight !== flight) return;
    this.#flight = undefined;
    handle();
    this.#arm();
  }

  #onAnswer(flight: HeartbeatFlight, response: HeartbeatResponse): void {
    if (typeof response !== 'object' || response === null || !Array.isArray(response.results)) {
      const error = new UnexpectedResponseError({ status: 200, code: 'unexpected_response_shape', message: 'The heartbeat answer carries no list of acks.' });
      return this.#onSettled(flight, () => this.#failed(error, this.now()));
    }
    this.#onSettled(flight, () => this.#applyAnswer(flight, response));
  }

  /**
   * A heartbeat answer obtained elsewhere (the raw `lh.heartbeat()`) shows the server is
   * reachable: retries the releases of the leases this client gave up on, as its own answers do.
   * @internal
   */
  serverAnswered(): void {
    this.#abandoned.retry(this.now());
  }

  #applyAnswer(flight: HeartbeatFlight, response: HeartbeatResponse): void {
    const now = this.now();
    this.#failures = 0;
    // A lease whose local deadline already passed is never trusted again, whatever the answer says.
    this.#leases.scan(now, { atRisk: false });
    const applied = applyHeartbeatAnswer(this.#leases, response.results, {
      sentAt: flight.sentAt,
      sequence: flight.sequence,
      ttlSeconds: this.#ttl,
      stopped: () => this.#closing !== undefined,
    });
    if (applied.stopped) return;
    this.#abandoned.retry(now);
    const factor = this.#jitterFactor();
    const scan = this.#leases.scan(now, { atRisk: true, missingFrom: flight, factor });
    const idleDue = flight.sentAt + factor * this.#idleCadenceMs();
    this.#nextHeartbeatAt = this.#leases.size === 0 ? Infinity : Math.max(now, scan.due === Infinity ? idleDue : scan.due);
    this.#stats.heartbeatsSucceeded += 1;
    this.#stats.leasesRenewed += applied.renewed;
    this.#events.emit('heartbeat', {
      results: response.results.length,
      renewed: applied.renewed,
      lost: applied.lost + scan.lost,
      roundTripMs: now - flight.sentAt,
    });
  }

  /** Remembers a lease given up on; after a deadline loss its release is sent at once. */
  #abandon(lease: Lease, releaseNow: boolean): void {
    if (this.#closing) return;
    this.#abandoned.add(lease, this.now(), releaseNow);
  }

  #failed(error: unknown, now: number): void {
    this.#failures += 1;
    this.#stats.failures += 1;
    const transient = this.#isTransient(error);
    // Decision: a non-transient rejection of the whole heartbeat (401, 402, 403, 400, ...) says
    // nothing about any single lease, and dropping leases silently would let their work go on
    // unguarded. So it is logged as an error and retried like a transient failure: each lease is
    // then aborted at its own local deadline unless a later heartbeat or explicit renew succeeds.
    this.#leases.scan(now, { atRisk: true });
    if (this.#leases.size === 0) return;
    const retryInMs = heartbeatRetryDelayMs(
      {
        failures: this.#failures,
        cadenceMs: this.#cadenceMs(),
        untilDeadlineMs: this.#leases.earliestDeadline - now,
        retryAfterMs: retryAfterMsOf(error),
        factor: this.#jitterFactor(),
      },
      this.#retry,
    );
    this.#nextHeartbeatAt = now + retryInMs;
    if (this.#failures === 1 || !transient) {
      this.#log(transient ? 'warn' : 'error', 'Lease heartbeat failed; retrying until local deadlines.', {
        status: statusOf(error),
        transient,
        attempt: this.#failures,
        retryInMs,
      });
    }
    this.#events.emit('failure', { error, transient, attempt: this.#failures, retryInMs });
  }

  /** A third of the shortest registered lease (or of the space-claim ttl when none expires). */
  #cadenceMs(): number {
    const shortest = this.#leases.shortestTermMs;
    return Number.isFinite(shortest) ? shortest / 3 : this.#idleCadenceMs();
  }

  #idleCadenceMs(): number {
    return spaceClaimDurationMs(this.#ttl) / 3;
  }

  #jitterFactor(): number {
    return 1 + this.#jitter * (2 * this.#random() - 1);
  }

  #log(level: keyof Logger, message: string, fields: Record<string, unknown>): void {
    try {
      this.#logger[level]?.(message, fields);
    } catch {
      // A throwing logger must never break renewals.
    }
  }
}
