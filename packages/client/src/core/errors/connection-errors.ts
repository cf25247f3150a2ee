import { LeaseholdError, type LeaseholdErrorOptions } from './leasehold-error.js';

/** The request never got an HTTP answer: DNS, refused or reset connection, TLS, broken body. */
export class ConnectionError extends LeaseholdError {
  override name = 'ConnectionError';

  constructor(message = 'Connection error.', options: LeaseholdErrorOptions = {}) {
    super(message, options);
  }
}

/** Which limit a {@link TimeoutError} hit: one attempt's `timeoutMs`, or the overall deadline. */
export type TimeoutScope = 'attempt' | 'deadline';

/** The request (or one attempt of it) took longer than allowed; distinct from {@link AbortError}. */
export class TimeoutError extends LeaseholdError {
  override name = 'TimeoutError';
  /** `attempt` when one attempt timed out (retryable); `deadline` when the overall budget ran out. */
  readonly scope: TimeoutScope;
  /** The limit that was exceeded, in milliseconds. */
  readonly timeoutMs: number;

  constructor(scope: TimeoutScope, timeoutMs: number, options: LeaseholdErrorOptions = {}) {
    super(
      scope === 'attempt'
        ? `Request timed out after ${Math.round(timeoutMs)} ms.`
        : `Request deadline of ${Math.round(timeoutMs)} ms exceeded.`,
      options,
    );
    this.scope = scope;
    this.timeoutMs = timeoutMs;
  }
}

/** The caller's `AbortSignal` cancelled the request (never retried, never a timeout). */
export class AbortError extends LeaseholdError {
  override name = 'AbortError';

  constructor(message = 'Request was aborted.', options: LeaseholdErrorOptions = {}) {
    super(message, options);
  }
}
