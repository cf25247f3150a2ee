import { AbortError, ConnectionError } from '../errors/connection-errors.js';
import { LeaseholdError } from '../errors/leasehold-error.js';
import { normalizeHeaders, type Transport, type TransportRequest, type TransportResponse } from './transport.js';

/** The part of `fetch` this transport needs (any WHATWG-compatible implementation). */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** Options of a {@link FetchTransport}. */
export interface FetchTransportOptions {
  /**
   * The fetch to call. Omitted, or `globalThis.fetch` itself: `globalThis.fetch` is looked up on
   * every request, so a later patch (MSW's `setupServer().listen()`) is seen.
   */
  fetch?: FetchLike | undefined;
}

/**
 * The transport for runtimes and tests that speak fetch (browsers, Deno, Bun, MSW, a hand-written
 * handler). Redirects follow fetch's default.
 * @example
 * const transport = new FetchTransport({ fetch: async (url, init) => new Response('{}') });
 */
export class FetchTransport implements Transport {
  readonly #fetch: () => FetchLike;

  constructor(options: FetchTransportOptions = {}) {
    const given = options.fetch;
    const isGlobal = given === undefined || given === (globalThis.fetch as unknown);
    this.#fetch = isGlobal ? () => globalThis.fetch as FetchLike : () => given;
  }

  /** Sends one request; network failures reject with ConnectionError, aborts with AbortError. */
  async send(req: TransportRequest): Promise<TransportResponse> {
    const { signal } = req;
    if (signal?.aborted) throw new AbortError(undefined, { cause: signal.reason });
    try {
      const fetchFn = this.#fetch();
      if (typeof fetchFn !== 'function') throw new LeaseholdError('No fetch implementation is available.');
      const init: RequestInit = { method: req.method, headers: { ...req.headers } };
      if (req.body !== undefined) init.body = req.body;
      if (signal) init.signal = signal;
      const res = await fetchFn(req.url, init);
      // `Response.error()` (status 0): a network error answered instead of thrown by a handler.
      if (res.type === 'error' || res.status === 0) throw new ConnectionError('Connection error: network error (no response).');
      const bodyText = await res.text();
      const headers: Array<[string, string]> = [];
      res.headers.forEach((value, name) => headers.push([name, value]));
      return { status: res.status, headers: normalizeHeaders(headers), bodyText };
    } catch (error) {
      if (error instanceof LeaseholdError) throw error;
      if (signal?.aborted || (error as { name?: unknown } | null)?.name === 'AbortError') {
        throw new AbortError(undefined, { cause: signal?.reason ?? error });
      }
      const detail = error instanceof Error ? errorDetail(error) : String(error);
      throw new ConnectionError(`Connection error: ${detail}`, { cause: error });
    }
  }

  /** Nothing to release: the caller owns its fetch. */
  async close(): Promise<void> {}
}

function errorDetail(error: Error): string {
  const cause = error.cause as { message?: unknown; code?: unknown } | undefined;
  const causeText = typeof cause?.message === 'string' ? `: ${cause.message}` : '';
  return `${error.message}${causeText}`;
}
