import { ManualClock, RealClock, Engine, type Clock, type KeyConfig, type RandomSource } from './engine/index.js';
import { listenWith, type NodeListener } from './adapters/node-http.js';
import { ServerControl } from './control.js';
import { openapiDocument } from './generated/openapi-document.js';
import { FaultInjector } from './http/faults.js';
import { plainFromRequest, responseFromPlain } from './http/fetch.js';
import { claimHandlers } from './http/handlers/claims.js';
import { controlHandlers } from './http/handlers/control.js';
import { spoolHandlers } from './http/handlers/spools.js';
import { taskHandlers } from './http/handlers/tasks.js';
import { Pipeline } from './http/pipeline.js';
import type { PlainRequest, PlainResponse } from './http/plain.js';

/** How to build a reference server. */
export interface LeaseholdServerOptions {
  /** `'real'` (default), `'manual'` (moves only through `control.advanceClock`), or any `Clock`. */
  clock?: 'real' | 'manual' | Clock;
  /** Start time of a manual clock, epoch ms (default 2026-01-01T00:00:00Z). */
  startTime?: number;
  /** API keys (default: the demo keys `lh_test_admin`, `lh_test_reader`, `lh_test_other`). */
  keys?: readonly KeyConfig[];
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
  /** Randomness for ids and tokens (default: `node:crypto`). */
  random?: RandomSource;
  /** An HTML page served at `/docs` (the offline API reference). */
  docsHtml?: string | (() => string);
  /** Waits real time for injected latency (override with fake timers in tests). */
  sleep?: (ms: number) => Promise<void>;
  /** Called with unexpected exceptions, which are answered as 500. */
  onInternalError?: (error: unknown) => void;
}

/**
 * `/openapi.json` names the server the request reached in `servers` (scheme, host, port and
 * mount), so code generators and "try it" consoles aimed at the served spec call this server.
 * The document is serialized once, around a placeholder for that URL.
 */
const SERVER_PLACEHOLDER = '\u0000server\u0000';
const [specHead, specTail] = JSON.stringify({
  ...openapiDocument,
  servers: [{ url: SERVER_PLACEHOLDER, description: 'This server: the API base URL this document was fetched from.' }],
}).split(JSON.stringify(SERVER_PLACEHOLDER)) as [string, string];

function specFor(apiBaseUrl: string): string {
  return specHead + JSON.stringify(apiBaseUrl) + specTail;
}

/**
 * The Leasehold reference server: the whole API in memory, behind a Fetch-standard `handle`,
 * with a controllable clock and fault injection.
 * @example
 * const server = createLeaseholdServer({ clock: 'manual' });
 * const response = await server.handle(new Request('http://localhost/v1/claims/heartbeat', init));
 * server.control.advanceClock(31_000);
 */
export class LeaseholdServer {
  /** The in-memory state. */
  readonly engine: Engine;
  /** Test levers: clock, faults, cancellations, primary change, suspension, rate limits. */
  readonly control: ServerControl;
  private readonly pipeline: Pipeline;

  /** Builds a server; see `LeaseholdServerOptions`. */
  constructor(options: LeaseholdServerOptions = {}) {
    const clock =
      options.clock === 'manual' ? new ManualClock(options.startTime)
      : options.clock === 'real' || options.clock === undefined ? new RealClock()
      : options.clock;
    this.engine = new Engine({ clock, keys: options.keys, random: options.random });
    const faults = new FaultInjector(options.seed);
    this.control = new ServerControl(this.engine, faults);
    const docs = options.docsHtml;
    this.pipeline = new Pipeline({
      engine: this.engine,
      faults,
      handlers: { ...claimHandlers, ...taskHandlers, ...spoolHandlers, ...controlHandlers(this.control) },
      basePaths: options.basePath === undefined ? undefined : typeof options.basePath === 'string' ? [options.basePath] : options.basePath,
      docsUrl: options.docsUrl,
      controlEnabled: options.control ?? false,
      sleep: options.sleep,
      onInternalError: options.onInternalError,
      staticRoutes: {
        '/openapi.json': ({ apiBaseUrl }) => ({
          status: 200,
          headers: { 'content-type': 'application/json; charset=utf-8' },
          body: specFor(apiBaseUrl),
        }),
        ...(docs === undefined
          ? {}
          : {
              '/docs': () => ({
                status: 200,
                headers: { 'content-type': 'text/html; charset=utf-8' },
                body: typeof docs === 'string' ? docs : docs(),
              }),
            }),
      },
    });
  }

  /**
   * Answers a Fetch `Request` (MSW handlers and in-process tests call this). `baseUrl` is what
   * the request reached before its path, when an adapter stripped a prefix (default: its origin).
   */
  async handle(request: Request, options: { baseUrl?: string } = {}): Promise<Response> {
    return responseFromPlain(await this.pipeline.handlePlain(await plainFromRequest(request, options.baseUrl)));
  }

  /** Answers a plain request (the `node:http` adapter and the undici dispatcher call this). */
  handlePlain(request: PlainRequest): Promise<PlainResponse> {
    return this.pipeline.handlePlain(request);
  }

  /** Serves over `node:http` on 127.0.0.1 (port 0: a free port). */
  listen(options: { port?: number; host?: string } = {}): Promise<NodeListener> {
    // The pipeline's synchronous entry: a request with no injected wait costs no promise.
    const pipeline = this.pipeline;
    return listenWith((request) => pipeline.respond(request), options);
  }
}

/** Builds a reference server. */
export function createLeaseholdServer(options: LeaseholdServerOptions = {}): LeaseholdServer {
  return new LeaseholdServer(options);
}
