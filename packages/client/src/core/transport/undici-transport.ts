import { Agent, errors as undiciErrors, util as undiciUtil, type Dispatcher } from 'undici';
import { startTimed, stopTimed, type TimedEntry } from './attempt-timer.js';
import { AbortError, ConnectionError, TimeoutError, type TimeoutScope } from '../errors/connection-errors.js';
import { LeaseholdError } from '../errors/leasehold-error.js';
import { sendDirect, sendThrough, type AttemptLimits, type DirectTransport } from './send-attempt.js';
import type { TransportRequest, TransportResponse } from './transport.js';

/** Options of an {@link UndiciTransport}. */
export interface UndiciTransportOptions {
  /** The caller's dispatcher (Agent, Pool, MockAgent, ...); never closed by this transport. */
  dispatcher?: Dispatcher | undefined;
  /** Keep-alive of the default agent's idle sockets, in ms. Default 30 000. */
  keepAliveTimeoutMs?: number | undefined;
  /** Most sockets per origin of the default agent. Default 16. */
  connections?: number | undefined;
}

/**
 * The Node transport: undici over a keep-alive `Agent` it owns, or over the caller's
 * dispatcher. `close()` closes only an agent it created. Requests go straight to
 * `dispatcher.dispatch()` with a small handler that buffers the body (what `undici.request` +
 * `body.text()` do, without a response stream per call); an attempt's time limit and the
 * caller's signal abort the request through that handler.
 * @example
 * const transport = new UndiciTransport();
 * try { ... } finally { await transport.close(); }
 * @see https://undici.nodejs.org/#/docs/api/Dispatcher
 */
export class UndiciTransport implements DirectTransport {
  readonly #dispatcher: Dispatcher;
  readonly #owned: Agent | undefined;
  /** The last URL prefix (scheme and authority, as written) seen, and its origin. */
  #prefix = '';
  #origin = '';

  constructor(options: UndiciTransportOptions = {}) {
    if (options.dispatcher) {
      this.#dispatcher = options.dispatcher;
    } else {
      this.#owned = new Agent({
        keepAliveTimeout: options.keepAliveTimeoutMs ?? 30_000,
        connections: options.connections ?? 16,
      });
      this.#dispatcher = this.#owned;
    }
  }

  /** Sends one request; network failures reject with ConnectionError, aborts with AbortError. */
  send(req: TransportRequest): Promise<TransportResponse> {
    const { signal } = req;
    if (signal?.aborted) return Promise.reject(new AbortError(undefined, { cause: signal.reason }));
    return this.#dispatch(req, signal, Number.NaN, 'attempt', 0);
  }

  /** Internal: one attempt under its time limit and the caller's signal. @internal */
  [sendDirect](req: Omit<TransportRequest, 'signal'>, limits: AttemptLimits): Promise<TransportResponse> {
    // A subclass that overrides `send` gets its `send` called, through the generic path.
    if (this.send !== UndiciTransport.prototype.send) return sendThrough(this, req, limits);
    const scope: TimeoutScope = limits.remainingMs < limits.timeoutMs ? 'deadline' : 'attempt';
    const limitMs = Math.max(0, Math.min(limits.timeoutMs, limits.remainingMs));
    return this.#dispatch(req, limits.signal, limitMs, scope, scope === 'attempt' ? limits.timeoutMs : limits.budgetMs);
  }

  /** Closes the agent this transport created; a caller's dispatcher is left open. */
  async close(): Promise<void> {
    await this.#owned?.close();
  }

  #dispatch(
    req: Omit<TransportRequest, 'signal'>,
    signal: AbortSignal | undefined,
    limitMs: number,
    scope: TimeoutScope,
    reportedMs: number,
  ): Promise<TransportResponse> {
    return new Promise<TransportResponse>((resolve, reject) => {
      const handler = new ResponseHandler(resolve, reject, signal, scope, reportedMs);
      let opts: Dispatcher.DispatchOptions;
      try {
        opts = this.#options(req);
      } catch (error) {
        handler.onError(error as Error);
        return;
      }
      if (Number.isFinite(limitMs)) startTimed(handler, limitMs);
      if (signal !== undefined) handler.listen(signal);
      try {
        this.#dispatcher.dispatch(opts, handler);
      } catch (error) {
        handler.onError(error as Error);
      }
    });
  }

  /** What `undici.request(url, ...)` would dispatch: origin and path from the URL, as the WHATWG parser reads it. */
  #options(req: Omit<TransportRequest, 'signal'>): Dispatcher.DispatchOptions {
    const { url } = req;
    let origin: string;
    let path: string;
    const prefix = this.#prefix;
    if (prefix !== '' && url.startsWith(prefix) && url.charCodeAt(prefix.length) === 47 /* / */ && isPlainPath(url, prefix.length)) {
      origin = this.#origin;
      path = url.slice(prefix.length);
    } else {
      const parsed = new URL(url);
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
        throw new undiciErrors.InvalidArgumentError('Invalid URL protocol: the URL must start with `http:` or `https:`.');
      }
      origin = parsed.origin;
      path = parsed.search ? `${parsed.pathname}${parsed.search}` : parsed.pathname;
      // Remember how this origin is written, for the next URL that starts the same way.
      const authorityEnd = url.indexOf('/', url.indexOf('//') + 2);
      if (authorityEnd > 0 && url.slice(authorityEnd) === path && isPlainPath(url, authorityEnd)) {
        this.#prefix = url.slice(0, authorityEnd);
        this.#origin = origin;
      }
    }
    return {
      origin,
      path,
      method: req.method as Dispatcher.HttpMethod,
      headers: req.headers as Record<string, string>,
      body: req.body,
    };
  }
}

/**
 * A path and query the WHATWG URL parser keeps exactly as written: no character it would
 * percent-encode, no backslash, no fragment, no empty query, and no dot segment to resolve.
 */
const PLAIN_PATH = /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@%/]*(?:\?[A-Za-z0-9\-._~!$&()*+,;=:@%/?]+)?$/;
const DOT_SEGMENT = /\/(?:\.|%2e){1,2}(?:[/?]|$)/i;

function isPlainPath(url: string, start: number): boolean {
  const path = url.slice(start);
  return PLAIN_PATH.test(path) && !DOT_SEGMENT.test(path);
}

/**
 * One request's dispatch handler (undici's handler interface): buffers the answer, settles the
 * promise once — with the answer, or with the first of: time limit, caller abort, error — and
 * aborts the request when it gives up first. Also the entry of the shared attempt timer.
 */
class ResponseHandler implements TimedEntry {
  expiresAt = Infinity;
  prevTimed: TimedEntry | null = null;
  nextTimed: TimedEntry | null = null;
  timed = false;
  #resolve: (response: TransportResponse) => void;
  #reject: (error: LeaseholdError) => void;
  #signal: AbortSignal | undefined;
  #onAbort: (() => void) | undefined = undefined;
  #scope: TimeoutScope;
  #reportedMs: number;
  #abort: ((reason?: Error) => void) | undefined = undefined;
  #failure: LeaseholdError | undefined = undefined;
  #done = false;
  #status = 0;
  #rawHeaders: ReadonlyArray<Buffer | string | string[]> | null = null;
  #chunks: Buffer[] = [];
  #length = 0;

  constructor(
    resolve: (response: TransportResponse) => void,
    reject: (error: LeaseholdError) => void,
    signal: AbortSignal | undefined,
    scope: TimeoutScope,
    reportedMs: number,
  ) {
    this.#resolve = resolve;
    this.#reject = reject;
    this.#signal = signal;
    this.#scope = scope;
    this.#reportedMs = reportedMs;
  }

  /** Gives up when `signal` aborts. */
  listen(signal: AbortSignal): void {
    this.#onAbort = () => this.#fail(new AbortError(undefined, { cause: signal.reason }));
    signal.addEventListener('abort', this.#onAbort, { once: true });
  }

  /** The shared timer: the time limit came first. */
  expire(): void {
    this.#fail(new TimeoutError(this.#scope, this.#reportedMs));
  }

  onConnect(abort: (reason?: Error) => void): void {
    // Gave up while the request waited for a connection: it is aborted as soon as it gets one.
    if (this.#failure !== undefined) abort(this.#failure);
    else this.#abort = abort;
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[] | string[] | null): boolean {
    if (statusCode >= 200) {
      this.#status = statusCode;
      this.#rawHeaders = rawHeaders;
    }
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.#chunks.push(chunk);
    this.#length += chunk.length;
    return true;
  }

  onComplete(): void {
    if (this.#done) return;
    this.#finish();
    this.#resolve({ status: this.#status, headers: headerRecord(this.#rawHeaders), bodyText: bodyText(this.#chunks, this.#length) });
  }

  onError(error: Error): void {
    if (this.#done) return;
    this.#finish();
    this.#reject(mapError(error, this.#signal));
  }

  /** Gives up: settles with `error` now and aborts the request (at once, or when it connects). */
  #fail(error: LeaseholdError): void {
    if (this.#done) return;
    this.#failure = error;
    this.#finish();
    this.#reject(error);
    const abort = this.#abort;
    this.#abort = undefined;
    abort?.(error);
  }

  #finish(): void {
    this.#done = true;
    if (this.timed) stopTimed(this);
    if (this.#onAbort !== undefined) {
      this.#signal?.removeEventListener('abort', this.#onAbort);
      this.#onAbort = undefined;
    }
  }
}

/** Response headers as `undici.request` reads them, with lowercase names and repeated values joined by ", ". */
function headerRecord(raw: ReadonlyArray<Buffer | string | string[]> | null): Record<string, string> {
  const out: Record<string, string> = {};
  if (raw === null) return out;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = undiciUtil.headerNameToString(raw[i] as Buffer | string);
    const item = raw[i + 1] as Buffer | string | Array<Buffer | string>;
    const value = typeof item === 'string' ? item : Array.isArray(item) ? item.map(latin1).join(', ') : item.toString('latin1');
    const previous = Object.hasOwn(out, name) ? out[name] : undefined;
    out[name] = previous === undefined ? value : `${previous}, ${value}`;
  }
  return out;
}

function latin1(value: Buffer | string): string {
  return typeof value === 'string' ? value : value.toString('latin1');
}

/** The body as UTF-8 text, a leading BOM skipped (what undici's `body.text()` returns). */
function bodyText(chunks: Buffer[], length: number): string {
  if (chunks.length === 0 || length === 0) return '';
  const buffer = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, length);
  const start = buffer.length > 2 && buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf ? 3 : 0;
  return start === 0 ? buffer.toString() : buffer.toString('utf8', start);
}

function mapError(error: unknown, signal: AbortSignal | undefined): LeaseholdError {
  if (error instanceof LeaseholdError) return error;
  if (signal?.aborted) return new AbortError(undefined, { cause: signal.reason });
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'UND_ERR_INVALID_ARG' || code === 'ERR_INVALID_URL') {
    return new LeaseholdError(`Invalid request: ${(error as Error).message}`, { cause: error });
  }
  const detail = error instanceof Error ? `${error.message}${code ? ` (${String(code)})` : ''}` : String(error);
  return new ConnectionError(`Connection error: ${detail}`, { cause: error });
}
