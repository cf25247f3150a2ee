import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { LEASE_KINDS } from '@leasehold/protocol';
import type { Store } from '../store/operations.js';

/** Seconds buckets for HTTP answers and statements: 0.5 ms … 5 s. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
/** Leases per batch heartbeat: 1 … 10,000 (the API's maximum). */
const HEARTBEAT_BUCKETS = [1, 10, 100, 500, 1000, 2500, 5000, 10_000];

/** How a server's metrics are built. */
export interface ServerMetricsOptions {
  /** Also collect prom-client's default process metrics (CPU, memory, event loop lag; default true). */
  processMetrics?: boolean;
}

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
  #store: Store | undefined;

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
    const metrics = this;
    new Gauge({
      name: 'leasehold_leases_held',
      help: 'Leases held now in the whole deployment (read from the store at scrape), by kind.',
      labelNames: ['kind'],
      registers,
      async collect() {
        const store = metrics.#store;
        if (store === undefined) return;
        const held = await store.heldByKind();
        for (const kind of LEASE_KINDS) this.set({ kind }, held[kind]);
      },
    });
    const pool = (name: string, help: string, read: (usage: NonNullable<ReturnType<Store['poolUsage']>>) => number) =>
      new Gauge({
        name,
        help,
        registers,
        collect() {
          const usage = metrics.#store?.poolUsage();
          if (usage !== undefined) this.set(read(usage));
        },
      });
    pool('leasehold_db_pool_connections', 'Connections open in the pool (pg totalCount).', (u) => u.total);
    pool('leasehold_db_pool_idle_connections', 'Idle connections in the pool (pg idleCount).', (u) => u.idle);
    pool('leasehold_db_pool_waiting_requests', 'Checkouts waiting for a pool connection (pg waitingCount).', (u) => u.waiting);
    pool('leasehold_db_pool_max_connections', 'The pool size (--pool-size).', (u) => u.max);
    if (options.processMetrics !== false) {
      // prom-client's default metrics (process CPU, memory, event loop lag), into this registry only.
      collectDefaultMetrics({ register: this.registry, prefix: 'leasehold_' });
    }
  }

  /** Reads the store's gauges from `store` (the server does this when it is built with these metrics). */
  attach(store: Store): void {
    this.#store = store;
  }

  /** Records one database round trip (`PgDriverOptions.onQueryDone`). */
  readonly observeStatement = (seconds: number): void => {
    this.statementDuration.observe(seconds);
  };

  /** The exposition format (Prometheus text 0.0.4). */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  /** The exposition format's content type. */
  get contentType(): string {
    return this.registry.contentType;
  }
}
