import { exponentialDelayMs } from './backoff.js';
import { isRetryableError, retryAfterMsOf } from './retryable.js';

/** Options of a {@link RetryPolicy}; every field has a production default. */
export interface RetryPolicyOptions {
  /** Retries after the first attempt (so attempts = maxRetries + 1). Default 2. */
  maxRetries?: number;
  /** Backoff base: the first retry waits up to this. Default 500 ms. */
  baseDelayMs?: number;
  /** Longest backoff wait. Default 8 000 ms. */
  maxDelayMs?: number;
  /** Longest wait taken from `Retry-After`/`retry-after-ms`; longer asks are cut to this. Default 60 000 ms. */
  maxRetryAfterMs?: number;
  /** Uniform random in [0, 1) for jitter; inject for deterministic tests. Default `Math.random`. */
  random?: () => number;
}

/** Retries after the first attempt when neither the call, the client nor the policy says otherwise. */
export const DEFAULT_MAX_RETRIES = 2;

/** What to do after a failed attempt. */
export type RetryDecision =
  | { readonly retry: true; readonly delayMs: number }
  | { readonly retry: false; readonly reason: 'not_retryable' | 'retries_exhausted' | 'deadline' };

/**
 * When and how long to retry: honours the server's wait (capped), else exponential backoff with
 * full jitter (`random() * min(maxDelay, base * 2^(retry-1))`).
 * @example
 * const policy = new RetryPolicy({ maxRetries: 5, random: () => 0.5 });
 * policy.decide(error, 1); // { retry: true, delayMs: 250 }
 */
export class RetryPolicy {
  /** Retries after the first attempt. */
  readonly maxRetries: number;
  /** Backoff base in ms. */
  readonly baseDelayMs: number;
  /** Backoff cap in ms. */
  readonly maxDelayMs: number;
  /** Cap on a server-requested wait, in ms. */
  readonly maxRetryAfterMs: number;
  readonly #random: () => number;

  constructor(options: RetryPolicyOptions = {}) {
    this.maxRetries = nonNegative(options.maxRetries, DEFAULT_MAX_RETRIES);
    this.baseDelayMs = nonNegative(options.baseDelayMs, 500);
    this.maxDelayMs = nonNegative(options.maxDelayMs, 8_000);
    this.maxRetryAfterMs = nonNegative(options.maxRetryAfterMs, 60_000);
    this.#random = options.random ?? Math.random;
  }

  /** Whether the error is retryable at all (`isRetryableError`, the one rule in `retryable.ts`). */
  isRetryable(error: unknown): boolean {
    return isRetryableError(error);
  }

  /** The wait before retry number `retry` (1-based) after `error`, in ms. */
  delayMs(retry: number, error?: unknown): number {
    const asked = retryAfterMsOf(error);
    if (asked !== undefined) return Math.min(asked, this.maxRetryAfterMs);
    const ceiling = exponentialDelayMs(retry, this.baseDelayMs, this.maxDelayMs);
    const r = Math.min(Math.max(this.#random(), 0), 1);
    return Math.floor(r * ceiling);
  }

  /**
   * Decides after `attempt` (1-based) failed with `error`. `remainingMs` is the time left before
   * the overall deadline, if any: a wait that would end past it is not taken.
   */
  decide(error: unknown, attempt: number, options: { maxRetries?: number | undefined; remainingMs?: number | undefined } = {}): RetryDecision {
    if (!this.isRetryable(error)) return { retry: false, reason: 'not_retryable' };
    if (attempt > (options.maxRetries ?? this.maxRetries)) return { retry: false, reason: 'retries_exhausted' };
    const delayMs = this.delayMs(attempt, error);
    if (options.remainingMs !== undefined && delayMs >= options.remainingMs) return { retry: false, reason: 'deadline' };
    return { retry: true, delayMs };
  }
}

function nonNegative(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value >= 0 ? value : fallback;
}
