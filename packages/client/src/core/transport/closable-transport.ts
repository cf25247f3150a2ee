import { ClientClosedError } from './client-closed-error.js';
import { sendAttempt, sendDirect, type AttemptLimits, type DirectTransport } from './send-attempt.js';
import type { Transport, TransportRequest, TransportResponse } from './transport.js';

/**
 * Wraps the client's transport so that, once closed, calls fail at once with
 * {@link ClientClosedError} (not a retryable connection error) and the inner transport is closed
 * (an undici agent the client created; a caller's dispatcher or fetch is left alone).
 */
export class ClosableTransport implements DirectTransport {
  readonly #inner: Transport;
  #closed = false;

  constructor(inner: Transport) {
    this.#inner = inner;
  }

  /** Whether `close()` was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Sends through the inner transport, unless closed. */
  send(request: TransportRequest): Promise<TransportResponse> {
    if (this.#closed) return Promise.reject(new ClientClosedError());
    return this.#inner.send(request);
  }

  /** Internal: one attempt through the inner transport (its own attempt sender when it has one), unless closed. @internal */
  [sendDirect](request: Omit<TransportRequest, 'signal'>, limits: AttemptLimits): Promise<TransportResponse> {
    if (this.#closed) return Promise.reject(new ClientClosedError());
    return sendAttempt(this.#inner, request, limits);
  }

  /** Refuses further calls and closes the inner transport. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#inner.close?.();
  }
}
