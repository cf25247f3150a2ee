import { AbortError, TimeoutError } from '../../core/errors/index.js';
import { ClientClosedError } from '../../core/transport/client-closed-error.js';
import type { Lease } from '../lease.js';
import { leaseControl, type LeaseHooks } from '../lease-control.js';
import { defaultDriftMarginMs } from '../lease-deadline.js';
import type { Listener } from '../typed-emitter.js';
import { AbandonedLeases } from './abandoned-leases.js';
import { leaseHooks, LeaseRegistry, releaseAll } from './lease-registry.js';
import { applyHeartbeatAnswer } from './apply-heartbeat-answer.js';
import { type HeartbeatFlight, HeartbeatRetries, HeartbeatSender, MAX_CLAIM_IDS_PER_HEARTBEAT } from './heartbeat-sending.js';
import { globalTimers, RenewalCadence, StallWatch, WakeTimer } from './scheduler-timing.js';
import { checkSchedulerOptions, type HeartbeatResponse, type RenewalSchedulerOptions } from './renewal-scheduler-options.js';
import { type RenewalSchedulerEvents, type RenewalStats, SchedulerReports } from './scheduler-reports.js';

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
  readonly #sender: HeartbeatSender;
  readonly #ttl: number;
  readonly #clock: () => number;
  readonly #cadence: RenewalCadence;
  readonly #retries: HeartbeatRetries;
  readonly #attemptTimeoutMs: number | undefined;
  readonly #reports: SchedulerReports;
  readonly #hooks: LeaseHooks;
  readonly #leases = new LeaseRegistry();
  /** Leases given up on (local deadline passed, or release failed): released once the server answers. */
  readonly #abandoned: AbandonedLeases;
  readonly #timer: WakeTimer;
  readonly #stalls = new StallWatch();
  #nextHeartbeatAt = Infinity;
  #flight: HeartbeatFlight | undefined;
  #closing: Promise<void> | undefined;

  constructor(options: RenewalSchedulerOptions) {
    const ttl = checkSchedulerOptions(options);
    this.#sender = new HeartbeatSender(options.sendHeartbeat, ttl, options.holderSession, options.maxClaimIdsPerHeartbeat ?? MAX_CLAIM_IDS_PER_HEARTBEAT);
    this.#ttl = ttl;
    const now = options.now;
    this.#clock = now ? () => now() : () => performance.now();
    this.#cadence = new RenewalCadence(ttl, options.jitter ?? 0.1, options.random ?? Math.random);
    this.#reports = new SchedulerReports(options.logger, options.observer);
    const log = this.#reports.log.bind(this.#reports);
    this.#retries = new HeartbeatRetries(options.retry, options.isTransient, log);
    this.#attemptTimeoutMs = options.attemptTimeoutMs;
    this.#timer = new WakeTimer(options.timers ?? globalTimers, this.#clock, () => this.#tick());
    this.#abandoned = new AbandonedLeases(log);
    const timing = { now: this.#clock, driftMarginMs: options.driftMarginMs ?? defaultDriftMarginMs, atRiskLeadMs: (d: number) => this.#cadence.atRiskLeadMs(d) };
    this.#hooks = leaseHooks(
      {
        reports: this.#reports,
        has: (lease) => this.#leases.has(lease),
        changed: (lease) => {
          this.#sawLoop(this.now());
          this.#note(lease, 1);
          this.#arm();
        },
        forget: (lease) => this.#forget(lease),
        abandon: (lease, releaseNow) => this.#abandon(lease, releaseNow),
      },
      timing,
    );
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
    this.#sawLoop(this.now());
    if (this.#leases.adopt(lease, this.#hooks)) {
      // The same claim adopted again (a replayed acquire): no longer abandoned.
      this.#abandoned.delete(lease.claimId);
      this.#stalls.start(this.now());
    }
    control.renewed(grant.sentAt, grant.durationMs, {}, 'register');
    if (!control.active) return;
    this.#note(lease, this.#nextHeartbeatAt === Infinity ? this.#cadence.jitterFactor() : 1);
    if (this.#nextHeartbeatAt === Infinity) this.#nextHeartbeatAt = this.now() + this.#cadence.idleCadenceMs();
    this.#arm();
  }

  /**
   * Keeps the process alive while a caller awaits what only this scheduler will tell it (a
   * queued claim's grant), as a pending request would; idle renewal alone never does. Returns
   * the function that ends the hold (idempotent).
   */
  hold(): () => void {
    return this.#timer.hold();
  }

  /** Stops renewing `lease` without releasing or aborting it; returns whether it was registered. */
  unregister(lease: Lease): boolean {
    return this.#forget(lease);
  }

  /** Subscribes to `stall`, `heartbeat` or `failure`; returns the unsubscribe function. */
  on<K extends keyof RenewalSchedulerEvents>(event: K, listener: Listener<RenewalSchedulerEvents[K]>): () => void {
    return this.#reports.on(event, listener);
  }

  /** A snapshot of the counters. */
  stats(): RenewalStats {
    return this.#reports.snapshot(this.#leases.size);
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
    this.#closing = options.releaseLeases ? releaseAll(leases, this.#reports) : Promise.resolve();
    return this.#closing;
  }

  /**
   * A heartbeat answer obtained elsewhere (the raw `lh.heartbeat()`) shows the server is
   * reachable: retries the releases of the leases this client gave up on, as its own answers do.
   * @internal
   */
  serverAnswered(): void {
    this.#abandoned.retry(this.now());
  }

  #forget(lease: Lease): boolean {
    if (!this.#leases.has(lease)) return false;
    this.#sawLoop(this.now());
    if (!this.#leases.delete(lease)) return false;
    lease[leaseControl].attach(undefined);
    if (this.#leases.size === 0) this.#idle();
    return true;
  }

  /** No lease left (or closed): zero timers, nothing in flight. */
  #idle(): void {
    this.#timer.clear();
    this.#stalls.stop();
    const flight = this.#flight;
    this.#flight = undefined;
    flight?.abandon(new AbortError('Heartbeat cancelled: no lease left to renew.'));
    this.#nextHeartbeatAt = Infinity;
    this.#leases.resetBounds();
    this.#retries.reset();
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
    const probe = this.#stalls.wakeBy(this.#cadenceMs());
    this.#timer.wakeBy(Math.min(earliestDeadline, earliestAtRisk, probe, flight ? flight.timeoutAt : this.#nextHeartbeatAt));
  }

  /**
   * The loop runs now: when it had not run for longer than a third of the shortest lease, leases
   * whose local deadline passed meanwhile are aborted first, then the stall is reported (once).
   */
  #sawLoop(now: number): void {
    const thresholdMs = this.#cadenceMs();
    const stalledMs = this.#stalls.seen(now, thresholdMs);
    if (stalledMs === undefined) return;
    const { lost: expired } = this.#leases.scan(now, { atRisk: true });
    this.#reports.stall(stalledMs, thresholdMs, expired);
  }

  #tick(): void {
    if (this.#closing || this.#leases.size === 0) return;
    const now = this.now();
    this.#sawLoop(now);
    // The cached bounds are lower bounds: nothing can be due before them, so most wake-ups skip the pass.
    const { earliestDeadline, earliestAtRisk } = this.#leases;
    if (now >= earliestDeadline || now >= earliestAtRisk) this.#leases.scan(now, { atRisk: true });
    const flight = this.#flight;
    if (flight && now >= flight.timeoutAt) this.#timeOut(flight, now);
    if (!this.#closing && !this.#flight && this.#leases.size > 0 && now >= this.#nextHeartbeatAt) this.#sendHeartbeat(now);
    this.#arm();
  }

  #sendHeartbeat(now: number): void {
    const claimIds = this.#leases.claimIds();
    this.#reports.sent(claimIds.length, this.#retries.failures > 0);
    const timeoutAt = now + (this.#attemptTimeoutMs ?? Math.max(1000, this.#cadenceMs()));
    this.#nextHeartbeatAt = Infinity;
    this.#flight = this.#sender.launch(claimIds, this.#leases.generation, now, timeoutAt, {
      answer: (flight, response) => this.#onSettled(flight, () => this.#applyAnswer(flight, response)),
      error: (flight, error) => this.#onSettled(flight, () => this.#failed(flight, error, this.now())),
      bug: (error) => {
        this.#reports.log('error', 'Lease renewal bookkeeping failed.', { error: String(error) });
        this.#arm();
      },
    });
  }

  #timeOut(flight: HeartbeatFlight, now: number): void {
    this.#flight = undefined;
    const error = new TimeoutError('attempt', flight.timeoutAt - flight.sentAt);
    flight.abandon(error);
    this.#failed(flight, error, now);
  }

  #onSettled(flight: HeartbeatFlight, handle: () => void): void {
    if (this.#closing || this.#flight !== flight) return;
    this.#sawLoop(this.now());
    if (this.#flight !== flight) return;
    this.#flight = undefined;
    handle();
    this.#arm();
  }

  #applyAnswer(flight: HeartbeatFlight, response: HeartbeatResponse): void {
    const now = this.now();
    this.#retries.reset();
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
    const factor = this.#cadence.jitterFactor();
    const scan = this.#leases.scan(now, { atRisk: true, missingFrom: flight, factor });
    const idleDue = flight.sentAt + factor * this.#cadence.idleCadenceMs();
    this.#nextHeartbeatAt = this.#leases.size === 0 ? Infinity : Math.max(now, scan.due === Infinity ? idleDue : scan.due);
    this.#reports.answered(now - flight.sentAt, response.results.length, applied.renewed, applied.lost + scan.lost);
  }

  /** Remembers a lease given up on; after a deadline loss its release is sent at once. */
  #abandon(lease: Lease, releaseNow: boolean): void {
    if (this.#closing) return;
    this.#abandoned.add(lease, this.now(), releaseNow);
  }

  #failed(flight: HeartbeatFlight, error: unknown, now: number): void {
    this.#retries.count();
    this.#reports.failed(now - flight.sentAt);
    this.#leases.scan(now, { atRisk: true });
    if (this.#leases.size === 0) return;
    const failure = this.#retries.next(error, {
      cadenceMs: this.#cadenceMs(),
      untilDeadlineMs: this.#leases.earliestDeadline - now,
      factor: this.#cadence.jitterFactor(),
    });
    this.#nextHeartbeatAt = now + failure.retryInMs;
    this.#reports.retrying(failure);
  }

  /** A third of the shortest registered lease (or of the space-claim ttl when none expires). */
  #cadenceMs(): number {
    return this.#cadence.cadenceMs(this.#leases.shortestTermMs);
  }
}
