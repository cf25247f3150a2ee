import { Agent, request, type Dispatcher } from 'undici';
import { AbortError, ConnectionError } from './connection-errors.js';
import { LeaseholdError } from './leasehold-error.js';
import { normalizeHeaders, type Transport, type TransportRequest, type TransportResponse } from './transport.js';

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
 * The Node transport: `undici.request` over a keep-alive `Agent` it owns, or over the caller's
 * dispatcher. `close()` closes only an agent it created.
 * @example
 * const transport = new UndiciTransport();
 * try { ... } finally { await transport.close(); }
 * @see https://undici.nodejs.org/#/docs/api/Dispatcher
 */
export class UndiciTransport implements Transport {
  readonly #dispatcher: Dispatcher;
  readonly #owned: Agent | undefined;

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
  async send(req: TransportRequest): Promise<TransportResponse> {
    const { signal } = req;
    if (signal?.aborted) throw new AbortError(undefined, { cause: signal.reason });
    try {
      const res = await request(req.url, {
        dispatcher: this.#dispatcher,
        method: req.method as Dispatcher.HttpMethod,
        headers: { ...req.headers },
        body: req.body,
        signal,
      });
      const bodyText = await res.body.text();
      return {
        status: res.statusCode,
        headers: normalizeHeaders(Object.entries(res.headers)),
        bodyText,
      };
    } catch (error) {
      throw mapError(error, signal);
    }
  }

  /** Closes the agent this transport created; a caller's dispatcher is left open. */
  async close(): Promise<void> {
    await this.#owned?.close();
  }
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
