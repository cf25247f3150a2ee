import { MAX_TTL_SECONDS, ttlSeconds } from '@leasehold/protocol';
import { EngineError } from './errors.js';

/**
 * Parse a heartbeat `ttl` into seconds with the one duration grammar (`@leasehold/protocol`
 * `ttlSeconds`), or `null` — "renew each lease for its own term" — when it is absent or `null`.
 * Any JSON number is a duration in seconds: a negative one counts as 0 and one above 10⁹ as 10⁹
 * (space claims clamp it to 5–600 s anyway, and a heartbeat never moves one earlier). A numeric
 * string (`"30"`), a duration string (`"30s"`, `"5m"`, `"1h"`, `"1500ms"`, `"1m30s"`) or ISO 8601
 * (`"PT30S"`, `"PT1M30S"`) is read as that duration. What carries no duration — another string,
 * a boolean, an object, an array — throws `invalid_ttl` with `param: "ttl"`, before any lease
 * is touched.
 * @example
 * parseTtl('1m30s'); // 90
 * parseTtl(undefined); // null: each lease for its own term
 */
export function parseTtl(value: unknown): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'number' && Number.isFinite(value)) return Math.min(MAX_TTL_SECONDS, Math.max(0, value));
  const seconds = ttlSeconds(value);
  if (seconds === undefined) throw new EngineError('invalid_ttl', ttlRefusal(value), 'ttl');
  return seconds;
}

/**
 * The message of an `invalid_ttl` for `value` (one owner: the HTTP validation answers it too).
 * @example
 * ttlRefusal(true); // 'ttl must be a number of seconds, … (got boolean); …'
 */
export function ttlRefusal(value: unknown): string {
  return `ttl must be a number of seconds, a numeric string, or a duration such as "30s", "5m" or "PT30S" (got ${describe(value)}); leave it out to renew each lease for its own term. Nothing was renewed.`;
}

function describe(value: unknown): string {
  if (typeof value === 'string') return value.length > 40 ? 'a string that is no duration' : JSON.stringify(value);
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : typeof value;
}
