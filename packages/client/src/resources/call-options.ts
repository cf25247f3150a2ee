import type { CallOptions } from '../core/request/call-options.js';

/** Per-call options every method accepts (owned by the request layer). */
export type { CallOptions } from '../core/request/call-options.js';

/** Every field of {@link CallOptions}, exactly (a field added there fails to compile until it is listed here). */
const CALL_OPTION_FIELDS = { idempotencyKey: true, operationId: true, signal: true, timeoutMs: true, totalTimeoutMs: true, maxRetries: true } satisfies Record<keyof CallOptions, true>;
const CALL_OPTION_NAMES = Object.keys(CALL_OPTION_FIELDS) as Array<keyof CallOptions>;

/** Just the {@link CallOptions} fields of a wider options object (so nothing else reaches `request()`). */
export function pickCallOptions(options: CallOptions | undefined): CallOptions {
  const picked: Record<string, unknown> = {};
  if (options) for (const name of CALL_OPTION_NAMES) if (options[name] !== undefined) picked[name] = options[name];
  return picked as CallOptions;
}
