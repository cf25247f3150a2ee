import type { CallOptions } from '../core/request/call-options.js';

/** Per-call options every method accepts (owned by the request layer). */
export type { CallOptions } from '../core/request/call-options.js';

const CALL_OPTION_NAMES = ['idempotencyKey', 'operationId', 'signal', 'timeoutMs', 'totalTimeoutMs', 'maxRetries'] as const satisfies ReadonlyArray<keyof CallOptions>;

/** Just the {@link CallOptions} fields of a wider options object (so nothing else reaches `request()`). */
export function pickCallOptions(options: CallOptions | undefined): CallOptions {
  const picked: Record<string, unknown> = {};
  if (options) for (const name of CALL_OPTION_NAMES) if (options[name] !== undefined) picked[name] = options[name];
  return picked as CallOptions;
}
