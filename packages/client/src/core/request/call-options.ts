/**
 * Per-call options every method accepts: a caller-chosen `idempotencyKey`, an `operationId`
 * whose key the idempotency store keeps across restarts, a `signal`, and timeout/retry overrides.
 */
export interface CallOptions {
  /** Use this key (stored under `operationId` when there is one). */
  idempotencyKey?: string | undefined;
  /** Names the logical operation: its key is stored before sending and reused after a restart. */
  operationId?: string | undefined;
  /** Cancels the call, including a backoff wait: rejects with `AbortError`. */
  signal?: AbortSignal | undefined;
  /** Per-attempt timeout for this call (overrides the config's; non-finite = none). */
  timeoutMs?: number | undefined;
  /** Budget for all attempts and waits, from the call, on the monotonic clock. */
  totalTimeoutMs?: number | undefined;
  /** Retries for this call (overrides the config's). */
  maxRetries?: number | undefined;
}
