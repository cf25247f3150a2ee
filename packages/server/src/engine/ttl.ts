import { ttlSeconds } from '@leasehold/protocol';
import { EngineError } from './errors.js';

/**
 * Parse a heartbeat `ttl` into seconds with the one duration grammar (`@leasehold/protocol`
 * `ttlSeconds`): a number ≥ 0, a numeric string (`"30"`), a duration string (`"30s"`, `"5m"`,
 * `"1h"`, `"1500ms"`, `"1m30s"`) or ISO 8601 (`"PT30S"`, `"PT1M30S"`). Anything else throws
 * `invalid_ttl` with `param: "ttl"`.
 * @example
 * parseTtl('1m30s'); // 90
 */
export function parseTtl(value: unknown): number {
  const seconds = ttlSeconds(value);
  if (seconds === undefined) {
    throw new EngineError(
      'invalid_ttl',
      'ttl must be a number of seconds, a numeric string, or a duration such as "30s", "5m" or "PT30S".',
      'ttl',
    );
  }
  return seconds;
}
