import '../leases/async-disposable.js';
import { operationKeyForgetter } from '../core/idempotency/operation-keys.js';
import { MemoryIdempotencyStore } from '../core/idempotency/memory-idempotency-store.js';
import { redactingLogger } from '../core/logger.js';
import { Redactor } from '../core/redact.js';
import type { RequestConfig } from '../core/request/request-options.js';
import { ClosableTransport } from '../core/transport/closable-transport.js';
import { VERSION } from '../core/version.js';
import { check } from '../internal/argument-checks.js';
import { Closing } from '../leases/closing.js';
import { GrantFlights } from '../leases/grant-flights.js';
import type { LeaseEndings } from '../leases/lease-backend.js';
import { LeaseTracker } from '../leases/lease-tracker.js';
import { sendRawHeartbeat, type HeartbeatOptions } from '../leases/raw-heartbeat.js';
import type { RenewalSchedulerEvents, RenewalStats } from '../leases/scheduler/scheduler-reports.js';
import type { Listener } from '../leases/typed-emitter.js';
import { Api } from '../resources/api.js';
import type { HeartbeatResponse } from '../resources/wire-types.js';
import { Space } from '../spaces/space.js';
import type { SpaceContext } from '../spaces/space-types.js';
import { Spool } from '../spools/spool.js';
import type { SpoolContext } from '../spools/spool-types.js';
import { Tasks } from '../tasks/tasks.js';
import { ClientTelemetry } from '../telemetry/client-telemetry.js';
import { loadOpenTelemetry } from '../telemetry/load-otel.js';
import { checkLeaseholdOptions } from './options-check.js';
import { DEFAULT_HEARTBEAT_TTL_SECONDS, type LeaseholdOptions } from './leasehold-options.js';
import type { Platform } from './platform.js';

/** Options of {@link LeaseholdClient.close}. */
export interface CloseOptions {
  /**
   * Release every lease still held or queued (space claims released, task claims released,
   * spool messages nacked), one attempt each, so others need not wait for expiry. Default true.
   * With `false` the leases are only no longer renewed: they run out on the server.
   */
  releaseLeases?: boolean | undefined;
}

/**
 * The Leasehold client, whatever the runtime (each entry point's `Leasehold` supplies its
 * transport): space claims, tasks and spools, every lease renewed by ONE batch heartbeat per
 * cadence, every mutating call idempotent across retries. This constructor is the composition
 * root: it builds the few collaborators each part needs and hands each part only those.
 */
export class LeaseholdClient implements AsyncDisposable {
  /** This client's session, recorded by every acquire and sent with every heartbeat. */
  readonly session: string;
  /** The batch heartbeat's `ttl` in seconds. */
  readonly heartbeatTtlSeconds: number;
  /** Tasks and task claims, and the safe worker loop `work()`. */
  readonly tasks: Tasks;
  readonly #api: Api;
  readonly #leases: LeaseTracker;
  readonly #grants: GrantFlights;
  readonly #closing: Closing;
  readonly #transport: ClosableTransport;
  readonly #spaces: SpaceContext;
  readonly #spools: SpoolContext;
  #closed: Promise<void> | undefined;

  /** Validates every option first: a bad one throws an `InvalidArgumentError` naming it and its value. @internal */
  constructor(options: LeaseholdOptions, platform: Platform) {
    checkLeaseholdOptions(options);
    const ttl = options.heartbeatTtlSeconds ?? DEFAULT_HEARTBEAT_TTL_SECONDS;
    this.session = options.session ?? `sess_${globalThis.crypto.randomUUID().replaceAll('-', '')}`;
    this.heartbeatTtlSeconds = ttl;
    this.#transport = new ClosableTransport(platform.transport(options));
    const redactor = new Redactor();
    redactor.add(options.apiKey);
    const log = redactingLogger(options.logger, redactor, options.logLevel ?? 'info');
    const otel = options.telemetry === false ? undefined : (options.telemetry?.api ?? loadOpenTelemetry());
    const telemetry = otel === undefined ? undefined : new ClientTelemetry(otel, VERSION, () => this.#leases.trackedIn());
    const idempotencyStore = options.idempotencyStore ?? new MemoryIdempotencyStore();
    const config: RequestConfig = {
      baseUrl: options.baseUrl,
      apiKey: options.apiKey,
      transport: this.#transport,
      timeoutMs: options.timeoutMs,
      maxRetries: options.maxRetries,
      idempotencyStore,
      redactor,
      logger: options.logger === undefined ? undefined : log,
      hooks: options.hooks,
      userAgent: options.userAgent,
      tracer: telemetry,
    };
    this.#api = new Api(config);
    this.#closing = new Closing();
    const closed = (): boolean => this.#closing.closed;
    this.#leases = new LeaseTracker({
      session: this.session,
      ttlSeconds: ttl,
      log,
      closed,
      renewal: options.renewal,
      observer: telemetry,
      sendHeartbeat: async (body, signal) => (await this.#api.call('heartbeatClaims', { body }, { signal, maxRetries: 0 })).data,
    });
    this.#grants = new GrantFlights({ closeSignal: this.#closing.signal, log });
    const endings: LeaseEndings = { releaseOptions: () => this.#closing.releaseOptions(), forgetOperation: operationKeyForgetter(idempotencyStore, log) };
    const shared = { api: this.#api, leases: this.#leases, grants: this.#grants, endings, log, closeSignal: this.#closing.signal };
    this.#spaces = { ...shared, ttlSeconds: ttl };
    this.#spools = { ...shared, redactor, hasLogger: options.logger !== undefined };
    this.tasks = new Tasks({ ...shared, redactor });
  }

  /** A space (any UUID the API key may see): its claims, its runs, run cancellation. */
  space(spaceId: string): Space {
    return new Space(this.#spaces, spaceId);
  }

  /** A spool by name: `create()`, `queue(name)`, `discard(handle)`. */
  spool(name: string): Spool {
    return new Spool(this.#spools, name);
  }

  /**
   * One raw batch heartbeat for this client's session (always sent with its `holderSession`):
   * `ttl` for held space claims, optional `details` progress report, optional single `claimId`.
   * The client's own leases are renewed automatically; use this to report `details`.
   */
  heartbeat(options: HeartbeatOptions): Promise<HeartbeatResponse> {
    return sendRawHeartbeat(this.#api, this.#leases, options);
  }

  /** Subscribes to the `heartbeat`, `failure` or `stall` events of the client's session's renewals; returns the unsubscribe function. */
  on<K extends keyof RenewalSchedulerEvents>(event: K, listener: Listener<RenewalSchedulerEvents[K]>): () => void {
    check(typeof listener === 'function', 'listener', 'a function', listener, 'lh.on');
    return this.#leases.scheduler().on(event, listener);
  }

  /** Counters of the client's session's renewal scheduler (heartbeats, renewals, losses, stalls). */
  stats(): RenewalStats {
    return this.#leases.scheduler().stats();
  }

  /**
   * Stops renewing (by default releasing every lease still held, one attempt each), stops
   * waiting acquires and consumers, and closes the connections the client opened. Afterwards no
   * timer or socket of the client keeps the process alive, and calls reject with
   * `ClientClosedError`. Idempotent.
   */
  close(options: CloseOptions = {}): Promise<void> {
    this.#closed ??= (async () => {
      try {
        // Pending acquires reject with ClientClosedError; the lease-creating requests still out
        // are waited for (what they were granted is released); then every scheduler stops.
        this.#closing.begin();
        await this.#grants.settled();
        await this.#leases.close({ releaseLeases: options.releaseLeases ?? true });
      } finally {
        await this.#transport.close();
      }
    })();
    return this.#closed;
  }

  /** Closes the client (for `await using`). */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
