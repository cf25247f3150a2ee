import { setMaxListeners } from 'node:events';
import { ClientClosedError } from './closable-transport.js';
import { AbortError } from './core/connection-errors.js';
import type { Logger } from './core/logger.js';
import type { RequestConfig } from './core/request-options.js';
import { GrantFlights } from './leases/grant-flights.js';
import type { Lease } from './leases/lease.js';
import { RenewalScheduler } from './leases/renewal-scheduler.js';
import type { RenewalSchedulerOptions } from './leases/renewal-scheduler-options.js';
import type { CallOptions } from './resources/call-options.js';
import { HeartbeatResource } from './resources/heartbeat.js';
import { SpaceClaimsResource } from './resources/space-claims.js';
import { SpoolsResource } from './resources/spools.js';
import { TasksResource } from './resources/tasks.js';

/** How long one release may take while the client closes. */
const CLOSING_RELEASE_TIMEOUT_MS = 5_000;

/** Scheduler settings a client may tune (advanced; tests use them for determinism). */
export type RenewalTuning = Partial<Omit<RenewalSchedulerOptions, 'sendHeartbeat' | 'holderSession' | 'ttlSeconds' | 'logger'>>;

/** What a {@link ClientRuntime} is built from. */
export interface ClientRuntimeInit {
  config: RequestConfig;
  session: string;
  ttlSeconds: number;
  log: Logger;
  renewal?: RenewalTuning | undefined;
}

/** A lease is registered with the scheduler of the session it was acquired with. */
export interface Grant {
  /** What the acquire granted, in ms (`null`: never expires). */
  durationMs: number | null;
  /** When the acquire was sent, on the scheduler's clock (`runtime.now(session)`). */
  sentAt: number;
}

/**
 * Internal: what every part of one client shares — the request config, the resources, the
 * renewal scheduler(s), the leases it tracks by claimId, and the close signal.
 */
export class ClientRuntime {
  /** Every request of the client goes through this config. */
  readonly config: RequestConfig;
  /** The client's session, recorded by every acquire and sent with every heartbeat. */
  readonly session: string;
  /** The batch heartbeat's `ttl` (the lease length of space claims between heartbeats). */
  readonly ttlSeconds: number;
  /** Redacting logger. */
  readonly log: Logger;
  readonly claims: SpaceClaimsResource;
  readonly tasks: TasksResource;
  readonly spools: SpoolsResource;
  readonly heartbeat: HeartbeatResource;
  /** Every lease-creating request in flight: a grant whose caller gave up is released, never left untracked. */
  readonly grants: GrantFlights;
  readonly #renewal: RenewalTuning;
  readonly #closer = new AbortController();
  readonly #schedulers = new Map<string, RenewalScheduler>();
  /** The tracked leases by claimId. */
  readonly #leases = new Map<string, Lease>();
  /** The session of each tracked lease acquired with another session than the client's own. */
  readonly #sessions = new Map<string, string>();
  #sweepAt = 64;
  #closed = false;
  #closing: Promise<void> | undefined;
  /** Where an error thrown by a lease event listener goes (one function shared by every lease). */
  readonly onListenerError = (error: unknown): void => {
    this.log.error('A lease event listener threw.', { error: String(error) });
  };

  constructor(init: ClientRuntimeInit) {
    this.config = init.config;
    this.session = init.session;
    this.ttlSeconds = init.ttlSeconds;
    this.log = init.log;
    this.#renewal = init.renewal ?? {};
    this.claims = new SpaceClaimsResource(this.config);
    this.tasks = new TasksResource(this.config);
    this.spools = new SpoolsResource(this.config);
    this.heartbeat = new HeartbeatResource(this.config);
    // Every pending acquire, grant flight and consumer listens to the close signal: no listener cap.
    setMaxListeners(0, this.#closer.signal);
    this.grants = new GrantFlights({ closeSignal: this.#closer.signal, log: this.log });
    this.scheduler(this.session);
  }

  /** Aborted (reason: an `AbortError`) when the client starts closing: waits and loops stop. */
  get closeSignal(): AbortSignal {
    return this.#closer.signal;
  }

  /** Call options of a release: normal while running; one attempt of at most 5 s while closing. */
  releaseOptions(): CallOptions {
    return this.#closed ? { maxRetries: 0, timeoutMs: CLOSING_RELEASE_TIMEOUT_MS } : {};
  }

  /**
   * Forgets the stored idempotency key of the operation that created a lease, once that lease
   * ended (released, completed, lost): a restart DURING the lease replays its acquire (and gets
   * the token back), while a later acquire under the same `operationId` is a new operation with a
   * fresh key. Never throws (a failure is logged; the entry then expires after its ttl).
   */
  async forgetOperation(operationId: string | undefined): Promise<void> {
    const store = this.config.idempotencyStore;
    if (operationId === undefined || store === undefined) return;
    try {
      await store.delete(operationId);
    } catch (error) {
      this.log.warn(`Could not delete the stored idempotency key of operation ${operationId}; it expires after its ttl.`, { error: String(error) });
    }
  }

  /** The scheduler renewing the leases of `session` (the client's own unless a run names another). */
  scheduler(session: string = this.session): RenewalScheduler {
    let scheduler = this.#schedulers.get(session);
    if (scheduler === undefined) {
      if (this.#closed) throw new ClientClosedError();
      scheduler = new RenewalScheduler({
        ...this.#renewal,
        sendHeartbeat: async (body, signal) => (await this.heartbeat.send(body, { signal, maxRetries: 0 })).data,
        holderSession: session,
        ttlSeconds: this.ttlSeconds,
        logger: this.log,
      });
      this.#schedulers.set(session, scheduler);
    }
    return scheduler;
  }

  /** Every scheduler of the client (the client's session first). */
  schedulers(): RenewalScheduler[] {
    return [...this.#schedulers.values()];
  }

  /** The scheduler's monotonic clock: read it just before sending an acquire. */
  now(session: string = this.session): number {
    return this.scheduler(session).now();
  }

  /** The live (held or queued) lease with this claimId that this client already holds, if any. */
  tracked(claimId: string): Lease | undefined {
    const lease = this.#leases.get(claimId);
    if (lease === undefined) return undefined;
    if (lease.status === 'held' || lease.status === 'queued') return lease;
    this.#untrack(claimId);
    return undefined;
  }

  /** The live leases acquired with `session` (every session's when omitted). */
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
  track<L extends Lease>(lease: L, grant: Grant, session: string = this.session): L {
    if (this.#closed) return lease;
    this.scheduler(session).register(lease, grant);
    if (this.#leases.size >= this.#sweepAt) this.#sweep();
    this.#leases.set(lease.claimId, lease);
    if (session !== this.session) this.#sessions.set(lease.claimId, session);
    else if (this.#sessions.size > 0) this.#sessions.delete(lease.claimId);
    return lease;
  }

  /**
   * Aborts the close signal (pending acquires reject with `ClientClosedError`), waits for the
   * lease-creating requests still out and releases what they were granted, then stops every
   * scheduler (releasing its leases when asked, each with a single attempt). Idempotent. The
   * caller closes the transport afterwards.
   */
  close(options: { releaseLeases?: boolean } = {}): Promise<void> {
    this.#closed = true;
    this.#closing ??= (async () => {
      this.#closer.abort(new AbortError('The Leasehold client was closed.'));
      const releaseLeases = options.releaseLeases ?? true;
      await this.grants.settled();
      await Promise.all(this.schedulers().map((scheduler) => scheduler.close({ releaseLeases })));
      this.#leases.clear();
      this.#sessions.clear();
    })();
    return this.#closing;
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
