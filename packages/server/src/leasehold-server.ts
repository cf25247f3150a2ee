import { ServerControl } from './control/server-control.js';
import { ManualClock, RealClock, type Clock, type Engine, type KeyConfig, type RandomSource } from './engine/index.js';
import { consoleAnswer } from './http/console.js';
import { FaultInjector } from './http/faults.js';
import { plainFromRequest, responseFromPlain } from './http/fetch.js';
import { apiHandlers, controlHandlers } from './http/handlers/index.js';
import { Pipeline } from './http/pipeline.js';
import type { PlainRequest, PlainResponse } from './http/plain.js';
import { servedSpec } from './http/served-spec.js';
import { MemoryStore, type MaybePromise, type Store } from './store/index.js';

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
  /** Waits real time for injected latency (override with fake timers in tests). */
  sleep?: (ms: number) => Promise<void>;
  /** Called with unexpected exceptions, which are answered as 500. */
  onInternalError?: (error: unknown) => void;
}

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
  private readonly pipeline: Pipeline;

  /** Builds a server; see `LeaseholdServerOptions`. */
  constructor(options: LeaseholdServerOptions<S> = {}) {
    this.store = options.store ?? (memoryStore(options) as Store as S);
    const faults = new FaultInjector(options.seed);
    this.control = new ServerControl(this.store, faults);
    const docs = options.docsHtml;
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
      staticRoutes: {
        '/openapi.json': ({ apiBaseUrl }) => ({ status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: servedSpec(apiBaseUrl) }),
        '/console': consoleAnswer,
        ...(docs === undefined ? {} : {
          '/docs': () => ({ status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: typeof docs === 'string' ? docs : docs() }),
        }),
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
