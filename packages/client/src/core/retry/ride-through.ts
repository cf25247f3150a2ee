import { AbortError } from '../errors/connection-errors.js';
import { ClientClosedError } from '../transport/client-closed-error.js';
import type { Logger } from '../logger.js';
import { exponentialDelayMs } from './backoff.js';
import { isRetryableError, retryAfterMsOf } from './retryable.js';

/** First wait of a loop riding through an outage, in ms (then doubling). */
export const RIDE_THROUGH_INITIAL_MS = 1_000;
/** Longest wait between two tries of a loop riding through an outage, in ms. */
export const RIDE_THROUGH_MAX_MS = 30_000;

/** What ends a step's ride through an outage, besides a definitive error. */
export interface RideThroughOptions {
  /** What the step does, for the log (`claim.run: acquire reports/2026-11`). */
  what: string;
  log: Logger;
  /** The caller's signal: once it aborts, the step's error (or an `AbortError`) ends the ride. */
  signal?: AbortSignal | undefined;
  /** The lease the step works under, if any: once it is lost, its `LeaseLostError` ends the ride. */
  lease?: { readonly signal: AbortSignal } | undefined;
  /** The client's close signal: once the client closes, the ride ends with `ClientClosedError`. */
  closed?: AbortSignal | undefined;
}

/**
 * Runs one step of a long-running loop (`claim.run`, `tasks.work`, a waiting `acquire`) until it
 * succeeds, riding through an outage: a failure that retrying may fix (connection errors, attempt
 * timeouts, 5xx, 429 — what every call already retries `maxRetries` times) is tried again after
 * a growing wait (1 s, 2 s, 4 s … at most 30 s, jittered, at least the server's `Retry-After`).
 * Only a definitive error, the caller's `signal`, the client closing or the loss of the step's
 * `lease` (its local deadline: renewal governs it meanwhile) ends it. The step must be safe to repeat: it sends the
 * same `Idempotency-Key` each time.
 */
export async function rideThrough<T>(step: () => Promise<T>, options: RideThroughOptions): Promise<T> {
  for (let failures = 0; ; failures++) {
    let error: unknown;
    try {
      const value = await step();
      if (failures > 0) options.log.info(`${options.what}: the server answers again after ${failures} failed tries; going on.`);
      return value;
    } catch (caught) {
      error = caught;
    }
    options.lease?.signal.throwIfAborted();
    if (!isRetryableError(error) || options.signal?.aborted) throw error;
    if (options.closed?.aborted) throw new ClientClosedError();
    const backoff = exponentialDelayMs(failures + 1, RIDE_THROUGH_INITIAL_MS, RIDE_THROUGH_MAX_MS) * (0.5 + Math.random() / 2);
    const delayMs = Math.max(backoff, retryAfterMsOf(error) ?? 0);
    const level = failures === 0 ? 'warn' : 'info';
    options.log[level](`${options.what} failed (${String(error)}); trying again in ${Math.round(delayMs)} ms (until it succeeds, its signal aborts or its lease is lost).`);
    await pause(delayMs, options);
  }
}

/** Waits `ms`; rejects at once with the lease's loss, `ClientClosedError` when the client closes, or an `AbortError` when the caller's signal aborts. */
function pause(ms: number, options: RideThroughOptions): Promise<void> {
  const signals = [options.signal, options.lease?.signal, options.closed].filter((s): s is AbortSignal => s !== undefined);
  return new Promise<void>((resolve, reject) => {
    const stop = (): void => {
      clearTimeout(timer);
      for (const signal of signals) signal.removeEventListener('abort', stop);
      const lost = options.lease?.signal;
      if (lost?.aborted) reject(lost.reason);
      else if (options.closed?.aborted && !options.signal?.aborted) reject(new ClientClosedError());
      else reject(new AbortError(undefined, { cause: options.signal?.reason }));
    };
    const timer = setTimeout(() => {
      for (const signal of signals) signal.removeEventListener('abort', stop);
      resolve();
    }, ms);
    for (const signal of signals) {
      if (signal.aborted) return stop();
      signal.addEventListener('abort', stop, { once: true });
    }
  });
}
