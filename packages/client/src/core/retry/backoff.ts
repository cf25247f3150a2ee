/**
 * The exponential schedule every retry of the client follows (requests and heartbeats alike):
 * `min(maxMs, baseMs × 2^(retry − 1))` for retry number `retry` (1-based). The callers add their
 * own jitter: full jitter for requests, ± a cadence factor for heartbeats.
 */
export function exponentialDelayMs(retry: number, baseMs: number, maxMs: number): number {
  return Math.min(maxMs, baseMs * 2 ** Math.max(0, retry - 1));
}
