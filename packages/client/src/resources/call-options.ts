import type { RequestOptions } from '../core/request/request-options.js';

/**
 * Per-call options every method accepts: a caller-chosen `idempotencyKey`, an `operationId`
 * whose key the idempotency store keeps across restarts, a `signal`, and timeout/retry overrides.
 */
export type CallOptions = Pick<RequestOptions, 'idempotencyKey' | 'operationId' | 'signal' | 'timeoutMs' | 'totalTimeoutMs' | 'maxRetries'>;

const CALL_OPTION_NAMES = ['idempotencyKey', 'operationId', 'signal', 'timeoutMs', 'totalTimeoutMs', 'maxRetries'] as const;

/** Just the {@link CallOptions} fields of a wider options object (so nothing else reaches `request()`). */
export function pickCallOptions(options: CallOptions | undefined): CallOptions {
  const picked: Record<string, unknown> = {};
  if (options) for (const name of CALL_OPTION_NAMES) if (options[name] !== undefined) picked[name] = options[name];
  return picked as CallOptions;
}
