import type { LeaseholdServer } from '@leasehold/server/portable';
import type { HttpHandler } from 'msw';
import { http } from 'msw/core/http';
import { answerFetch } from './answer-fetch.js';
import { baseUrlPattern, parseBaseUrl } from './base-url.js';
import { resolveServer, type ServerOrOptions } from './mock-server.js';
import { LeaseholdScenario } from './scenario.js';
import { createLeaseholdHttp, type LeaseholdHttp } from './typed-http.js';

/** Options of `createLeaseholdHandlers`. */
export interface LeaseholdHandlersOptions {
  /**
   * The base URL the code under test calls, with its mount prefix and without `/v1`
   * (`https://api.test` or `https://api.test/api`). Only requests to it, or beneath it on a
   * path-segment boundary, are handled.
   */
  baseUrl: string | URL;
  /**
   * The reference server to answer with (it must mount the root, as the default mounts do), or the
   * options of a new one. Default: a new server on a manual clock.
   */
  server?: ServerOrOptions;
}

/** What `createLeaseholdHandlers` returns. */
export interface LeaseholdHandlers {
  /** MSW handlers to pass to `setupServer(...)` / `setupWorker(...)` or `server.use(...)`. */
  handlers: HttpHandler[];
  /** The reference server behind them: read its state, pull `server.control`. */
  server: LeaseholdServer;
  /** Fault, lease and clock levers over `server`. */
  scenario: LeaseholdScenario;
  /** Typed one-off overrides bound to `baseUrl`, to layer with `mswServer.use(...)`. */
  http: LeaseholdHttp;
  /** The normalized base URL (`https://api.test/api`). */
  baseUrl: string;
}

/**
 * MSW handlers that answer every request under `baseUrl` with an in-memory Leasehold
 * reference server: the whole API, statefully. Each call has its own state; nothing is global.
 * @example
 * const leasehold = createLeaseholdHandlers({ baseUrl: 'https://api.test' });
 * const mswServer = setupServer(...leasehold.handlers);
 * leasehold.scenario.advanceClock('31s');
 * @see https://mswjs.io/docs/api/setup-server
 */
export function createLeaseholdHandlers(options: LeaseholdHandlersOptions): LeaseholdHandlers {
  const base = parseBaseUrl(options.baseUrl);
  const server = resolveServer(options.server);
  const handler = http.all(baseUrlPattern(base), ({ request }) => answerFetch(server, base, request));
  return {
    handlers: [handler],
    server,
    scenario: new LeaseholdScenario(server),
    http: createLeaseholdHttp({ baseUrl: base.href }),
    baseUrl: base.href,
  };
}
