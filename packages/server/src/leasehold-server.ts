import { ServerControl } from './control/server-control.js';
import { ManualClock, RealClock, type Clock, type Engine, type KeyConfig, type RandomSource } from './engine/index.js';
import { consoleAnswer } from './http/console.js';
import { DeploymentFaults } from './http/deployment-faults.js';
import { FaultInjector } from './http/faults.js';
import { plainFromRequest, responseFromPlain } from './http/fetch.js';
import { apiHandlers, controlHandlers } from './http/handlers/index.js';
import { metricsObserver } from './metrics/metrics-observer.js';
import type { ServerMetrics } from './metrics/server-metrics.js';
import { observeAll, type RequestObserver } from './http/observer.js';
import { operationalRoutes } from './http/operational.js';
import { Pipeline } from './http/pipeline.js';
import type { PlainRequest, PlainResponse } from './http/plain.js';
import { LANDING_LINKS, landingPage } from './http/landing.js';
import { pageAnswer } from './http/pages.js';
import { referenceRoutes, type StaticFile } from './http/reference-routes.js';
import { servedSpec } from './http/served-spec.js';
import { MemoryStore } from './store/memory/memory-store.js';
import type { MaybePromise, Store } from './store/operations.js';

/** How to build a reference server. */
export interface LeaseholdServerOptions<S extends Store = MemoryStore> {
  /**
   * Where the state lives (default: a new `MemoryStore` built from `clock`, `startTime`, `keys`
   * and `random`). A SQL store (`openStore('postgres://…')`) brings its own clock and keys.
   */
  store?: S;
  /** Memory store only: `'real'` (default), `'manual'` (moves only through `control.advanceClock`), or any `Clock`. */
  clock?: 'real' | 'manual' | Clock;
  /** Memory store only: start time of a manual clock, epoch ms (default 2026-01-01T00:00:00Z). */
  startTime?: number;
  /** Memory store only: API keys (default: the demo keys `lh_test_admin`, `lh_test_reader`, `lh_test_other`). */
  keys?: readonly KeyConfig[];
  /** Memory store only: randomness for ids and tokens (default: `node:crypto`). */
  random?: RandomSource;
  /**
   * The prefixes the whole API is served under, e.g. `['/', '/api']` (the default, so every
   * seed page's literal paths work against one server) or `'/api'` alone.
   */
  basePath?: string | readonly string[];
  /**
   * The API reference every error's `doc_url` links into, for a hosted deployment
   * (`https://docs.example.com/leasehold`). Default: the one this server serves,
   * `<the API base URL the request reached>/docs`.
   */
  docsUrl?: string;
  /** Serve the `/_control` test operations over HTTP (they are always available in process). */
  control?: boolean;
  /** Seed for probabilistic faults. */
  seed?: number;
  /** An HTML page served at `/docs` (the offline API reference). */
  docsHtml?: string | (() => string);
  /**
   * The files of the SDK reference (TypeDoc) served under `/docs/client/`: given a path beneath it
   * (`index.html`, `classes/Leasehold.html`), its content type and text, or `undefined` (404).
   */
  clientDocs?: (path: string) => StaticFile | undefined;
  /** The files of the Python SDK reference served under `/docs/python/`, as `clientDocs` does. */
  pythonDocs?: (path: string) => StaticFile | undefined;
  /** Waits real time for injected latency (override with fake timers in tests). */
  sleep?: (ms: number) => Promise<void>;
  /** Called with unexpected exceptions, which are answered as 500. */
  onInternalError?: (error: unknown) => void;
  /**
   * Prometheus metrics served at `/metrics` (docs/operating.md): a `ServerMetrics` (its registry
   * is this server's; Node entry only, prom-client). Default: none (no per-request cost).
   */
  metrics?: ServerMetrics;
  /** Sees every answer (e.g. the CLI's request log); with metrics, both see it. */
  observer?: RequestObserver;
  /** How long `/readyz` waits for the store before it answers 503 (ms, default 2000). */
  readinessTimeoutMs?: number;
}

export type { StaticFile } from './http/reference-routes.js';

/** The engine behind a memory store (`undefined` for a SQL store). */
export type EngineOf<S extends Store> = S extends MemoryStore ? Engine : Engine | undefined;

function memoryStore(options: LeaseholdServerOptions<Store>): MemoryStore {
  const clock =
    options.clock === 'manual' ? new ManualClock(options.startTime)
    : options.clock === 'real' || options.clock === undefined ? new RealClock()
    : options.clock;
  return new MemoryStore({ clock, keys: options.keys, random: options.random });
}

/**
 * The Leasehold reference server as a Fetch-standard app: `fetch(Request) → Response` (MSW and
 * in-process tests call it, no server needed) and `handlePlain(PlainRequest)` for adapters that
 * speak plain values (`node:http`: `listen(server)`; the undici dispatcher). State lives in a
 * `Store` (memory by default; PostgreSQL or an embedded PGlite through `openStore`); the test
 * levers are `control`. Adapters import the app, never the reverse.
 * @example
 * const server = createLeaseholdServer({ clock: 'manual' });
 * const response = await server.fetch(new Request('http://localhost/v1/claims/heartbeat', init));
 * server.control.advanceClock(31_000);
 * @see listen
 */
export class LeaseholdServer<S extends Store = MemoryStore> {
  /** Where the state lives. */
  readonly store: S;
  /** Test levers: clock, faults, cancellations, primary change, suspension, rate limits. */
  readonly control: ServerControl<S>;
  /** The server's Prometheus metrics (`undefined` unless built with `metrics`). */
  readonly metrics: ServerMetrics | undefined;
  private readonly pipeline: Pipeline;
  #draining = false;

  /** Builds a server; see `LeaseholdServerOptions`. */
  constructor(options: LeaseholdServerOptions<S> = {}) {
    this.store = options.store ?? (memoryStore(options) as Store as S);
    const faultRules = this.store.faultRules;
    const faults = faultRules === undefined ? new FaultInjector(options.seed) : new DeploymentFaults(faultRules, options.seed);
    this.control = new ServerControl(this.store, faults);
    const docs = options.docsHtml;
    this.metrics = options.metrics;
    this.metrics?.attach(this.store);
    const landingLinks = LANDING_LINKS.filter((link) => link.requires === undefined || options[link.requires] !== undefined);
    this.pipeline = new Pipeline({
      store: this.store,
      control: this.control as ServerControl<Store>,
      faults,
      handlers: apiHandlers,
      controls: controlHandlers,
      basePaths: options.basePath === undefined ? undefined : typeof options.basePath === 'string' ? [options.basePath] : options.basePath,
      docsUrl: options.docsUrl,
      controlEnabled: options.control ?? false,
      sleep: options.sleep,
      onInternalError: options.onInternalError,
      observer: observeAll([this.metrics === undefined ? undefined : metricsObserver(this.metrics), options.observer]),
      staticRoutes: {
        ...operationalRoutes({ store: this.store, draining: () => this.#draining, metrics: this.metrics, readinessTimeoutMs: options.readinessTimeoutMs }),
        '/openapi.json': async ({ apiBaseUrl }) => ({ status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: await servedSpec(apiBaseUrl) }),
        '/': ({ mount }) => landingPage(mount, landingLinks),
        '/console': consoleAnswer,
        ...(docs === undefined ? {} : {
          '/docs': () => pageAnswer('text/html; charset=utf-8', typeof docs === 'string' ? docs : docs()),
        }),
        ...referenceRoutes('client', options.clientDocs),
        ...referenceRoutes('python', options.pythonDocs),
      },
    });
  }

  /** The in-memory engine, when the store is the memory store. */
  get engine(): EngineOf<S> {
    const store: Store = this.store;
    return (store instanceof MemoryStore ? store.engine : undefined) as EngineOf<S>;
  }

  /**
   * Answers a Fetch `Request`. `baseUrl` is what the request reached before its path, when an
   * adapter stripped a prefix (default: its origin).
   */
  async fetch(request: Request, options: { baseUrl?: string } = {}): Promise<Response> {
    return responseFromPlain(await this.pipeline.respond(await plainFromRequest(request, options.baseUrl)));
  }

  /** The same as `fetch` (the name MSW-era callers know). */
  handle(request: Request, options: { baseUrl?: string } = {}): Promise<Response> {
    return this.fetch(request, options);
  }

  /** Answers a plain request (the undici dispatcher and other adapters of plain values). */
  handlePlain(request: PlainRequest): Promise<PlainResponse> {
    return this.pipeline.handlePlain(request);
  }

  /**
   * Answers a plain request synchronously when nothing has to wait (the memory store, no injected
   * latency), else a promise: the `node:http` adapter's entry, which costs no promise per request.
   */
  respond(request: PlainRequest): MaybePromise<PlainResponse> {
    return this.pipeline.respond(request);
  }

  /**
   * Starts a graceful shutdown: `/readyz` answers 503 from now on, so load balancers stop
   * sending new requests while the ones in flight finish (the CLI calls this on SIGTERM, waits
   * `--shutdown-delay`, then closes its listener and the store).
   */
  drain(): void {
    this.#draining = true;
  }

  /** True once `drain()` was called. */
  get draining(): boolean {
    return this.#draining;
  }

  /** Closes the store (its pool, sweep timer or embedded database); stop listeners first. */
  close(): Promise<void> {
    return this.store.close();
  }
}

/**
 * Builds a reference server (over a new memory store unless `options.store` names one).
 * @example
 * const server = createLeaseholdServer({ store: await openStore('postgres://leasehold@127.0.0.1/leasehold') });
 */
export function createLeaseholdServer<S extends Store>(options: LeaseholdServerOptions<S> & { store: S }): LeaseholdServer<S>;
export function createLeaseholdServer(options?: LeaseholdServerOptions<MemoryStore>): LeaseholdServer<MemoryStore>;
export function createLeaseholdServer<S extends Store>(options: LeaseholdServerOptions<S> = {}): LeaseholdServer<S> {
  return new LeaseholdServer<S>(options);
}
