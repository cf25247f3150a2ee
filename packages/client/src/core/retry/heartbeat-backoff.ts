import { exponentialDelayMs } from './backoff.js';

/** Backoff settings of heartbeat retries (all in ms). */
export interface BackoffSettings {
  /** First retry delay. */
  initialDelayMs: number;
  /** Longest retry delay. */
  maxDelayMs: number;
  /** Shortest delay once a near deadline squeezes retries. */
  minDelayMs: number;
}

/** What the next retry delay depends on. */
export interface BackoffInput {
  /** Consecutive failures so far (1 after the first). */
  failures: number;
  /** The current cadence: no retry waits longer than one. */
  cadenceMs: number;
  /** Time left until the earliest local deadline (`Infinity`: none). */
  untilDeadlineMs: number;
  /** The wait the server asked for, if any. */
  retryAfterMs: number | undefined;
  /** Jitter factor around 1. */
  factor: number;
}

/**
 * Delay before the next heartbeat after a failure: exponential backoff with jitter, capped by
 * one cadence, at least the server's `retryAfterMs`, and never more than half the time left
 * before the earliest local deadline (so attempts keep coming until it, at most every `minDelayMs`).
 */
export function heartbeatRetryDelayMs(input: BackoffInput, settings: BackoffSettings): number {
  const cap = Math.min(settings.maxDelayMs, Math.max(settings.initialDelayMs, input.cadenceMs));
  let delay = exponentialDelayMs(input.failures, settings.initialDelayMs, cap) * input.factor;
  if (input.retryAfterMs !== undefined) delay = Math.max(delay, input.retryAfterMs);
  if (Number.isFinite(input.untilDeadlineMs)) {
    delay = Math.min(delay, Math.max(settings.minDelayMs, input.untilDeadlineMs / 2));
  }
  return Math.max(0, delay);
}
