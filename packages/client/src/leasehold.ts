import { randomUUID } from 'node:crypto';
import { ClientRuntime } from './client-runtime.js';
import { check } from './core/argument-checks.js';
import { ClosableTransport } from './closable-transport.js';
import { FetchTransport } from './core/fetch-transport.js';
import { redactingLogger } from './core/logger.js';
import { MemoryIdempotencyStore } from './core/memory-idempotency-store.js';
import { Redactor } from './core/redact.js';
import type { RequestConfig } from './core/request-options.js';
import { UndiciTransport } from './core/undici-transport.js';
import type { RenewalSchedulerEvents } from './leases/renewal-scheduler-options.js';
import type { RenewalStats } from './leases/renewal-stats.js';
import type { Listener } from './leases/typed-emitter.js';
import { checkLeaseholdOptions } from './leasehold-options-check.js';
import { DEFAULT_HEARTBEAT_TTL_SECONDS, type LeaseholdOptions } from './leasehold-options.js';
import { sendRawHeartbeat, type HeartbeatOptions } from './raw-heartbeat.js';
import { Space } from './space.js';
import { Spool } from './spool.js';
import { Tasks } from './tasks.js';
import type { HeartbeatResponse } from './wire-types.js';

/** Options of {@link Leasehold.close}. */
export interface CloseOptions {
  /**
   * Release every lease still held or queued (space claims released, task claims released,
   * spool messages nacked), one attempt each, so others need not wait for expiry. Default true.
   * With `false` the leases are only no longer renewed: they run out on the server.
   */
  releaseLeases?: boolean | undefined;
}

/**
 * The Leasehold client: space claims, tasks and spools, every lease renewed by ONE batch
 * heartbeat per cadence, every mutating call idempotent across retries.
 * @example
 * const lh = new Leasehold({ baseUrl: 'https://api.leasehold.example', apiKey: process.env.LEASEHOLD_API_KEY! });
 * const run = lh.space(spaceId).run(runId, { holder: 'worker-1' });
 * const rows = await run.claim('reports/2026-11').run(async (lease) => rebuild({ fence: lease.fence, signal: lease.signal }));
 * await lh.close();
 * @see https://api.leasehold.example/docs
 */
export class Leasehold implements AsyncDisposable {
  /** This client's session, recorded by every acquire and sent with every heartbeat. */
  readonly session: string;
  /** The batch heartbeat's `ttl` in seconds. */
  readonly heartbeatTtlSeconds: number;
  /** Tasks and task claims, and the safe worker loop `work()`. */
  readonly tasks: Tasks;
  readonly #runtime: ClientRuntime;
  readonly #transport: ClosableTransport;
  #closing: Promise<void> | undefined;

  /** Validates every option first: a bad one throws an `InvalidArgumentError` naming it and its value. */
  constructor(options: LeaseholdOptions) {
    checkLeaseholdOptions(options);
    const ttl = options.heartbeatTtlSeconds ?? DEFAULT_HEARTBEAT_TTL_SECONDS;
    const session = options.session ?? `sess_${randomUUID().replaceAll('-', '')}`;
    this.session = session;
    this.heartbeatTtlSeconds = ttl;
    this.#transport = new ClosableTransport(
      options.fetch ? new FetchTransport({ fetch: options.fetch }) : new UndiciTransport({ dispatcher: options.dispatcher }),
    );
    const redactor = new Redactor();
    redactor.add(options.apiKey);
    const config: RequestConfig = {
      baseUrl: options.baseUrl,
      apiKey: options.apiKey,
      transport: this.#transport,
      timeoutMs: options.timeoutMs,
      maxRetries: options.maxRetries,
      idempotencyStore: options.idempotencyStore ?? new MemoryIdempotencyStore(),
      redactor,
      logger: options.logger,
      hooks: options.hooks,
      userAgent: options.userAgent,
    };
    this.#runtime = new ClientRuntime({
      config,
      session,
      ttlSeconds: ttl,
      log: redactingLogger(options.logger, redactor),
      renewal: options.renewal,
    });
    this.tasks = new Tasks(this.#runtime);
  }

  /** A space (any UUID the API key may see): its claims, its runs, run cancellation. */
  space(spaceId: string): Space {
    return new Space(this.#runtime, spaceId);
  }

  /** A spool by name: `create()`, `queue(name)`, `discard(handle)`. */
  spool(name: string): Spool {
    return new Spool(this.#runtime, name);
  }

  /**
   * One raw batch heartbeat for this client's session (always sent with its `holderSession`):
   * `ttl` for held space claims, optional `details` progress report, optional single `claimId`.
   * The client's own leases are renewed automatically; use this to report `details`.
   */
  heartbeat(options: HeartbeatOptions): Promise<HeartbeatResponse> {
    return sendRawHeartbeat(this.#runtime, options);
  }

  /** Subscribes to the `heartbeat`, `failure` or `stall` events of the client's session's renewals; returns the unsubscribe function. */
  on<K extends keyof RenewalSchedulerEvents>(event: K, listener: Listener<RenewalSchedulerEvents[K]>): () => void {
    check(typeof listener === 'function', 'listener', 'a function', listener, 'lh.on');
    return this.#runtime.scheduler().on(event, listener);
  }

  /** Counters of the client's session's renewal scheduler (heartbeats, renewals, losses, stalls). */
  stats(): RenewalStats {
    return this.#runtime.scheduler().stats();
  }

  /**
   * Stops renewing (by default releasing every lease still held, one attempt each), stops
   * waiting acquires and consumers, and closes the connections the client opened. Afterwards no
   * timer or socket of the client keeps the process alive, and calls reject with
   * `ClientClosedError`. Idempotent.
   */
  close(options: CloseOptions = {}): Promise<void> {
    this.#closing ??= (async () => {
      try {
        await this.#runtime.close({ releaseLeases: options.releaseLeases ?? true });
      } finally {
        await this.#transport.close();
      }
    })();
    return this.#closing;
  }

  /** Closes the client (for `await using`). */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
