import type { Logger } from '../core/logger.js';
import { ClientClosedError } from '../core/transport/client-closed-error.js';
import type { Lease } from './lease.js';
import { RenewalScheduler } from './scheduler/renewal-scheduler.js';
import type { RenewalTuning, SendHeartbeat } from './scheduler/renewal-scheduler-options.js';
import type { SchedulerObserver } from './scheduler/scheduler-reports.js';

/** A lease is registered with the scheduler of the session it was acquired with. */
export interface TrackedGrant {
  /** What the acquire granted, in ms (`null`: never expires). */
  durationMs: number | null;
  /** When the acquire was sent, on the scheduler's clock (`now(session)`). */
  sentAt: number;
}

/** What the lease-creating code needs from the tracker (the adoption path, waits, run cancels). */
export interface LeaseBook {
  /** The client's session. */
  readonly session: string;
  /** Where an error thrown by a lease event listener goes. */
  readonly onListenerError: (error: unknown) => void;
  /** The monotonic clock of `session`'s scheduler: read it just before sending an acquire. */
  now(session?: string): number;
  /** Keeps the process alive while a caller awaits what only `session`'s scheduler will tell it; returns the release. */
  hold(session?: string): () => void;
  /** The live lease with this claimId that this client already holds, if any. */
  tracked(claimId: string): Lease | undefined;
  /** The live leases acquired with `session` (every session's when omitted). */
  trackedIn(session?: string): Lease[];
  /** Registers a fresh lease with its session's scheduler and tracks it. */
  track<L extends Lease>(lease: L, grant: TrackedGrant, session?: string): L;
}

/** What a {@link LeaseTracker} is built from. */
export interface LeaseTrackerInit {
  session: string;
  /** The batch heartbeat's `ttl`. */
  ttlSeconds: number;
  /** Sends one heartbeat attempt (no retries: each scheduler owns its retry schedule). */
  sendHeartbeat: SendHeartbeat;
  log: Logger;
  /** Whether the client is closing (then nothing new is registered). */
  closed: () => boolean;
  renewal?: RenewalTuning | undefined;
  /** Hears what every scheduler does, for metrics. */
  observer?: SchedulerObserver | undefined;
}

/**
 * The leases one client holds: a renewal scheduler per session (the client's own, and one per
 * run that names another `holderSession`), and every live lease by claimId, so that a replayed
 * acquire finds the lease it already has.
 */
export class LeaseTracker implements LeaseBook {
  readonly session: string;
  readonly onListenerError: (error: unknown) => void;
  readonly #init: LeaseTrackerInit;
  readonly #schedulers = new Map<string, RenewalScheduler>();
  /** The tracked leases by claimId. */
  readonly #leases = new Map<string, Lease>();
  /** The session of each tracked lease acquired with another session than the client's own. */
  readonly #sessions = new Map<string, string>();
  #sweepAt = 64;

  constructor(init: LeaseTrackerInit) {
    this.#init = init;
    this.session = init.session;
    this.onListenerError = (error) => init.log.error('A lease event listener threw.', { error: String(error) });
    this.scheduler(this.session);
  }

  /** The scheduler renewing the leases of `session` (the client's own unless a run names another). */
  scheduler(session: string = this.session): RenewalScheduler {
    let scheduler = this.#schedulers.get(session);
    if (scheduler === undefined) {
      if (this.#init.closed()) throw new ClientClosedError();
      const { renewal, sendHeartbeat, ttlSeconds, log } = this.#init;
      scheduler = new RenewalScheduler({ ...renewal, sendHeartbeat, holderSession: session, ttlSeconds, logger: log, observer: this.#init.observer });
      this.#schedulers.set(session, scheduler);
    }
    return scheduler;
  }

  /** Every scheduler of the client (the client's session first). */
  schedulers(): RenewalScheduler[] {
    return [...this.#schedulers.values()];
  }

  now(session: string = this.session): number {
    return this.scheduler(session).now();
  }

  hold(session: string = this.session): () => void {
    return this.scheduler(session).hold();
  }

  tracked(claimId: string): Lease | undefined {
    const lease = this.#leases.get(claimId);
    if (lease === undefined) return undefined;
    if (lease.status === 'held' || lease.status === 'queued') return lease;
    this.#untrack(claimId);
    return undefined;
  }

  trackedIn(session?: string): Lease[] {
    const out: Lease[] = [];
    for (const [claimId, lease] of this.#leases) {
      if (lease.status !== 'held' && lease.status !== 'queued') continue;
      if (session === undefined || (this.#sessions.get(claimId) ?? this.session) === session) out.push(lease);
    }
    return out;
  }

  /**
   * Registers a fresh lease with its session's scheduler (right after its acquire) and tracks it
   * by claimId. Once the client is closing, nothing is registered any more: the lease is
   * returned as is, for its grant flight to release.
   */
  track<L extends Lease>(lease: L, grant: TrackedGrant, session: string = this.session): L {
    if (this.#init.closed()) return lease;
    this.scheduler(session).register(lease, grant);
    if (this.#leases.size >= this.#sweepAt) this.#sweep();
    this.#leases.set(lease.claimId, lease);
    if (session !== this.session) this.#sessions.set(lease.claimId, session);
    else if (this.#sessions.size > 0) this.#sessions.delete(lease.claimId);
    return lease;
  }

  /** Stops every scheduler (releasing its leases when asked, each with a single attempt) and forgets every lease. */
  async close(options: { releaseLeases: boolean }): Promise<void> {
    await Promise.all(this.schedulers().map((scheduler) => scheduler.close(options)));
    this.#leases.clear();
    this.#sessions.clear();
  }

  #sweep(): void {
    for (const [claimId, lease] of this.#leases) {
      if (lease.status !== 'held' && lease.status !== 'queued') this.#untrack(claimId);
    }
    this.#sweepAt = Math.max(64, this.#leases.size * 2);
  }

  #untrack(claimId: string): void {
    this.#leases.delete(claimId);
    if (this.#sessions.size > 0) this.#sessions.delete(claimId);
  }
}
