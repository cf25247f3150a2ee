import { STATUS_CODES } from 'node:http';
import type { LeaseholdServer } from '@leasehold/server/portable';
import { Dispatcher, errors } from 'undici';
import { parseBaseUrl, pathUnderBase, type BaseUrl } from '../base-url.js';
import { leaseWatchOf } from '../lease-watch.js';
import { resolveServer, type ServerOrOptions } from '../mock-server.js';
import { LeaseholdScenario } from '../scenario.js';
import { DispatchExchange } from './dispatch-controller.js';
import { controllerHandlerOf } from './legacy-handler.js';
import { plainHeaders, readBody, targetUrl } from './request-parts.js';

/** Options of a `LeaseholdDispatcher`. */
export interface LeaseholdDispatcherOptions {
  /**
   * Answer only requests under this base URL (its mount prefix is stripped, as the MSW
   * handlers do); anything else fails with `LeaseholdDispatcherError`. Default: every request,
   * whatever its origin, with the API at the path's root.
   */
  baseUrl?: string | URL;
  /** The reference server to answer with (it must mount the root, as the default mounts do), or the options of a new one (manual clock). */
  server?: ServerOrOptions;
}

/** A request the dispatcher does not answer (outside its base URL, an upgrade, a CONNECT). */
export class LeaseholdDispatcherError extends Error {
  readonly code = 'LEASEHOLD_NOT_MOCKED';

  constructor(message: string) {
    super(message);
    this.name = 'LeaseholdDispatcherError';
  }
}

/**
 * An undici `Dispatcher` that answers in process with the Leasehold reference server's
 * `handlePlain` — for code that keeps undici as its transport (the client's default), which MSW
 * does not intercept. A dropped answer fails the request with undici's `SocketError`
 * (`UND_ERR_SOCKET`), as a cut connection would.
 * @example
 * const dispatcher = new LeaseholdDispatcher({ baseUrl: 'https://api.test' });
 * const lh = new Leasehold({ baseUrl: 'https://api.test', apiKey: 'lh_test_admin', dispatcher });
 * dispatcher.scenario.advanceClock('31s');
 * @see https://undici.nodejs.org/#/docs/api/Dispatcher
 */
export class LeaseholdDispatcher extends Dispatcher {
  /** The reference server behind this dispatcher. */
  readonly server: LeaseholdServer;
  /** Fault, lease and clock levers over `server`. */
  readonly scenario: LeaseholdScenario;
  /** The normalized base URL, or `undefined` when every request is answered. */
  readonly baseUrl: string | undefined;
  readonly #base: BaseUrl | undefined;
  readonly #running = new Map<DispatchExchange, Promise<void>>();
  #closed = false;
  #destroyed = false;

  /** A dispatcher over `options.server`, or over a new mock server. */
  constructor(options: LeaseholdDispatcherOptions = {}) {
    super();
    this.#base = options.baseUrl === undefined ? undefined : parseBaseUrl(options.baseUrl);
    this.baseUrl = this.#base?.href;
    this.server = resolveServer(options.server);
    this.scenario = new LeaseholdScenario(this.server);
  }

  /** Starts answering one request; the handler hears back asynchronously. */
  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    if (!handler || typeof handler !== 'object') throw new errors.InvalidArgumentError('handler must be an object');
    if (this.#destroyed) throw new errors.ClientDestroyedError();
    if (this.#closed) throw new errors.ClientClosedError();
    const exchange = new DispatchExchange(controllerHandlerOf(handler));
    const done = this.#answer(options, exchange)
      .catch((error: unknown) => exchange.fail(error instanceof Error ? error : new Error(String(error))))
      .finally(() => this.#running.delete(exchange));
    this.#running.set(exchange, done);
    return true;
  }

  /** Stops taking requests and waits for the running ones. */
  override close(): Promise<void>;
  override close(callback: () => void): void;
  override close(callback?: () => void): Promise<void> | void {
    this.#closed = true;
    const done = Promise.all(this.#running.values()).then(() => undefined);
    if (!callback) return done;
    void done.then(callback);
  }

  /** Stops taking requests and fails the running ones with `error` (default `ClientDestroyedError`). */
  override destroy(): Promise<void>;
  override destroy(error: Error | null): Promise<void>;
  override destroy(callback: () => void): void;
  override destroy(error: Error | null, callback: () => void): void;
  override destroy(errorOrCallback?: Error | null | (() => void), callback?: () => void): Promise<void> | void {
    const error = typeof errorOrCallback === 'function' ? null : errorOrCallback ?? null;
    const done = typeof errorOrCallback === 'function' ? errorOrCallback : callback;
    this.#closed = true;
    this.#destroyed = true;
    for (const exchange of this.#running.keys()) exchange.controller.abort(error ?? new errors.ClientDestroyedError());
    const finished = Promise.all(this.#running.values()).then(() => undefined);
    if (!done) return finished;
    void finished.then(done);
  }

  /** Runs one exchange: request start, the server's answer, then headers, body and end (or one error). */
  async #answer(options: Dispatcher.DispatchOptions, exchange: DispatchExchange): Promise<void> {
    const { handler, controller } = exchange;
    handler.onRequestStart?.(controller, {});
    if (exchange.settled) return;
    const method = options.method.toUpperCase();
    if (options.upgrade || method === 'CONNECT') throw new LeaseholdDispatcherError('Upgrades and CONNECT are not mocked');
    const url = targetUrl(options);
    const path = this.#base ? pathUnderBase(this.#base, url) : url.pathname + url.search;
    if (path === undefined) throw new LeaseholdDispatcherError(`No Leasehold mock for ${url.href} (base URL ${this.baseUrl})`);
    const { body, tooLarge } = await readBody(options.body);
    const answer = await this.server.handlePlain({
      method,
      url: path,
      headers: plainHeaders(options.headers),
      body,
      bodyTooLarge: tooLarge,
      baseUrl: this.#base?.href ?? url.origin,
    });
    await leaseWatchOf(this.server).observe({
      method,
      path,
      status: answer.status,
      replayed: Object.entries(answer.headers).some(([name, value]) => name.toLowerCase() === 'idempotent-replayed' && value === 'true'),
      readBody: async () => answer.body,
    });
    if (exchange.settled) return;
    if (answer.drop) throw new errors.SocketError('other side closed');

    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(answer.headers)) headers[name.toLowerCase()] = value;
    headers['content-length'] = String(answer.body === undefined ? 0 : Buffer.byteLength(answer.body));
    handler.onResponseStart?.(controller, answer.status, headers, STATUS_CODES[answer.status] ?? '');
    await controller.whenResumed();
    if (exchange.settled) return;
    if (answer.body !== undefined && answer.body !== '' && method !== 'HEAD') {
      handler.onResponseData?.(controller, Buffer.from(answer.body));
      await controller.whenResumed();
      if (exchange.settled) return;
    }
    exchange.end();
  }
}
