import { Counter, Gauge, Histogram, Registry, loadDefaultMetrics } from './prom-client-parts.js';
import { LEASE_KINDS, type LeaseKind } from '@leasehold/protocol';
import type { PoolUsage, Store } from '../store/operations.js';

/** Seconds buckets for HTTP answers and statements: 0.5 ms … 5 s. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
/** Leases per batch heartbeat: 1 … 10,000 (the API's maximum). */
const HEARTBEAT_BUCKETS = [1, 10, 100, 500, 1000, 2500, 5000, 10_000];

/** How a server's metrics are built. */
export interface ServerMetricsOptions {
  /**
   * Also collect prom-client's default process metrics (CPU, memory, event loop lag; default
   * true). They are loaded off the start's path: one second after the metrics are built, or at
   * the first scrape if that comes sooner (which waits for them), so `/metrics` always has them.
   */
  processMetrics?: boolean;
  /**
   * How long a scrape waits for the store's `leasehold_leases_held` statement before it answers
   * without that gauge (ms, default 1000): `/metrics` never waits on a busy pool or database.
   */
  storeReadTimeoutMs?: number;
}

/** Why a scrape answered without `leasehold_leases_held`. */
type SkipReason = 'pool_busy' | 'timeout' | 'error';

/**
 * The server's Prometheus metrics, in a registry of its own (never prom-client's global one, so
 * several servers in one process — tests, the demo — never share or collide). The names are
 * documented in docs/operating.md. Counters are this process's; scrape every process (each
 * replica's `/metrics`) and sum. Gauges of the store (leases held, pool usage) are read at scrape.
 * @example
 * const metrics = new ServerMetrics();
 * const server = createLeaseholdServer({ store, metrics });
 * const text = await metrics.text(); // the exposition format
 */
export class ServerMetrics {
  /** The registry `/metrics` answers from. */
  readonly registry = new Registry();
  /** Answers by operation (`operationId`, or `static`/`unrouted`) and status. */
  readonly requests: Counter<'operation' | 'status'>;
  /** Answer latency by operation, seconds (from the request's arrival at the pipeline to its answer). */
  readonly requestDuration: Histogram<'operation'>;
  /** Leases granted, by kind. */
  readonly grants: Counter<'kind'>;
  /** Leases reported to their holder as expired (a `lease_expired` answer). */
  readonly expirations: Counter<'operation'>;
  /** Leases reported to their holder as lost (a heartbeat entry `lost`, a `stale_token` or `claim_not_held` answer). */
  readonly losses: Counter<'operation'>;
  /** Leases per batch heartbeat. */
  readonly heartbeatSize: Histogram;
  /** Answers replayed from an idempotency record, by operation. */
  readonly replays: Counter<'operation'>;
  /** Database round trips, seconds. */
  readonly statementDuration: Histogram;
  /** Live leases by kind (read from the store at scrape, when it answers at once). */
  readonly leasesHeld: Gauge<'kind'>;
  /** Scrapes that answered without `leasehold_leases_held`, by reason. */
  readonly storeReadsSkipped: Counter<'reason'>;
  readonly #pool: { total: Gauge; idle: Gauge; waiting: Gauge; max: Gauge };
  readonly #storeReadTimeoutMs: number;
  #store: Store | undefined;
  /** Registers the default process metrics (once; later calls answer the same promise); undefined when they are not wanted. */
  #processMetrics: (() => Promise<void>) | undefined;

  /** A registry with every Leasehold metric (and the process's, unless `processMetrics: false`). */
  constructor(options: ServerMetricsOptions = {}) {
    const registers = [this.registry];
    this.requests = new Counter({
      name: 'leasehold_http_requests_total',
      help: 'HTTP answers by operation and status.',
      labelNames: ['operation', 'status'],
      registers,
    });
    this.requestDuration = new Histogram({
      name: 'leasehold_http_request_duration_seconds',
      help: 'Time from a request reaching the pipeline to its answer, by operation.',
      labelNames: ['operation'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.grants = new Counter({ name: 'leasehold_lease_grants_total', help: 'Leases granted, by kind.', labelNames: ['kind'], registers });
    this.expirations = new Counter({
      name: 'leasehold_lease_expirations_total',
      help: 'Leases their holder was told had expired (lease_expired answers), by operation.',
      labelNames: ['operation'],
      registers,
    });
    this.losses = new Counter({
      name: 'leasehold_lease_losses_total',
      help: 'Leases their holder was told were lost (heartbeat entries lost, stale_token and claim_not_held answers), by operation.',
      labelNames: ['operation'],
      registers,
    });
    this.heartbeatSize = new Histogram({
      name: 'leasehold_heartbeat_leases',
      help: 'Leases renewed per batch heartbeat.',
      buckets: HEARTBEAT_BUCKETS,
      registers,
    });
    this.replays = new Counter({
      name: 'leasehold_idempotent_replays_total',
      help: 'Answers replayed from an idempotency record, by operation.',
      labelNames: ['operation'],
      registers,
    });
    this.statementDuration = new Histogram({
      name: 'leasehold_db_statement_duration_seconds',
      help: 'Database round trips (one message: a statement or a script), seconds.',
      buckets: LATENCY_BUCKETS,
      registers,
    });
    // The store's gauges are set by `text()` (the pool's before any statement of the scrape), never
    // by a collect callback: a scrape must not wait for the pool, nor count its own checkout.
    this.leasesHeld = new Gauge({
      name: 'leasehold_leases_held',
      help: 'Leases held now in the whole deployment (read from the store at scrape), by kind.',
      labelNames: ['kind'],
      registers,
    });
    this.storeReadsSkipped = new Counter({
      name: 'leasehold_metrics_store_reads_skipped_total',
      help: 'Scrapes answered without leasehold_leases_held: the pool had no free connection (pool_busy), the statement did not answer in time (timeout) or failed (error).',
      labelNames: ['reason'],
      registers,
    });
    const gauge = (name: string, help: string) => new Gauge({ name, help, registers });
    this.#pool = {
      total: gauge('leasehold_db_pool_connections', 'Connections open in the pool (pg totalCount).'),
      idle: gauge('leasehold_db_pool_idle_connections', 'Idle connections no checkout is about to take (pg idleCount).'),
      waiting: gauge('leasehold_db_pool_waiting_requests', 'Checkouts waiting for a pool connection, none of this scrape (pg waitingCount).'),
      max: gauge('leasehold_db_pool_max_connections', 'The pool size (--pool-size).'),
    };
    this.#storeReadTimeoutMs = options.storeReadTimeoutMs ?? 1000;
    if (options.processMetrics !== false) this.#deferProcessMetrics();
  }

  /**
   * prom-client's default metrics (process CPU, memory, event loop lag), into this registry only,
   * registered a second from now or by the first scrape. Loading them costs ~30 ms once per
   * process: a server's cold start to its first `/healthz` no longer waits for it.
   */
  #deferProcessMetrics(): void {
    let registered: Promise<void> | undefined;
    const register = () =>
      (registered ??= loadDefaultMetrics().then((collect) => {
        clearTimeout(timer);
        collect({ register: this.registry, prefix: 'leasehold_' });
      }));
    const timer = setTimeout(() => void register().catch(() => {}), 1000);
    timer.unref?.();
    this.#processMetrics = register;
  }

  /** Reads the store's gauges from `store` (the server does this when it is built with these metrics). */
  attach(store: Store): void {
    this.#store = store;
  }

  /** Records one database round trip (`PgDriverOptions.onQueryDone`). */
  readonly observeStatement = (seconds: number): void => {
    this.statementDuration.observe(seconds);
  };

  /**
   * The exposition format (Prometheus text 0.0.4). The store's gauges are read first: the pool's
   * usage as it is before this scrape checks anything out, then the leases held — unless the
   * pool has no free connection, and for at most `storeReadTimeoutMs` (else the gauge is left
   * out of this scrape and `leasehold_metrics_store_reads_skipped_total` says why).
   */
  async text(): Promise<string> {
    await this.#processMetrics?.();
    const store = this.#store;
    if (store !== undefined) {
      const usage = store.poolUsage();
      if (usage !== undefined) this.#setPool(usage);
      const skipped = await this.#readHeld(store, usage);
      if (skipped !== undefined) {
        this.leasesHeld.reset();
        this.storeReadsSkipped.inc({ reason: skipped });
      }
    }
    return this.registry.metrics();
  }

  #setPool(usage: PoolUsage): void {
    this.#pool.total.set(usage.total);
    this.#pool.idle.set(usage.idle);
    this.#pool.waiting.set(usage.waiting);
    this.#pool.max.set(usage.max);
  }

  /** Sets `leasesHeld` from the store; answers why it could not, if it could not. */
  async #readHeld(store: Store, usage: PoolUsage | undefined): Promise<SkipReason | undefined> {
    // Every connection checked out: the statement would only queue behind the requests.
    if (usage !== undefined && usage.idle === 0 && usage.total >= usage.max) return 'pool_busy';
    let held: Record<LeaseKind, number> | SkipReason;
    try {
      const read = store.heldByKind();
      if (read instanceof Promise) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const late = new Promise<SkipReason>((resolve) => (timer = setTimeout(() => resolve('timeout'), this.#storeReadTimeoutMs)));
        held = await Promise.race([read.catch((): SkipReason => 'error'), late]);
        clearTimeout(timer);
      } else held = read;
    } catch {
      held = 'error';
    }
    if (typeof held === 'string') return held;
    for (const kind of LEASE_KINDS) this.leasesHeld.set({ kind }, held[kind]);
    return undefined;
  }

  /** The exposition format's content type. */
  get contentType(): string {
    return this.registry.contentType;
  }
}
