/**
 * The one duration grammar of Leasehold. A duration is
 * - a number ≥ 0 (the API's `ttl` counts it in seconds; the mock's levers in milliseconds),
 * - a numeric string in the same unit (`"30"`, `"2.5"`: up to 9 digits and 3 decimals),
 * - a compact duration: one or more `<amount><unit>` with unit `ms`, `s`, `m` or `h`
 *   (`"500ms"`, `"30s"`, `"5m"`, `"1h"`, `"1m30s"`; amounts up to 9 digits and 3 decimals),
 * - ISO 8601 time: `"PT30S"`, `"PT1M30S"`, `"PT1H"` (H, M, S in that order, at least one).
 * Anything else is no duration (`undefined`). The API's `ttl` also caps it at 10⁹ seconds.
 */

/** What a bare number (or numeric string) counts. */
export type DurationNumberUnit = 'seconds' | 'milliseconds';

/** A duration as the mock's levers take it: milliseconds, or a duration string (`'500ms'`, `'31s'`, `'5m'`, `'PT1M'`). */
export type Duration = number | `${number}${'ms' | 's' | 'm' | 'h'}` | `PT${string}`;

/** The largest `ttl` the API accepts, in seconds. */
export const MAX_TTL_SECONDS = 1_000_000_000;

const NUM = '[0-9]{1,9}(?:\\.[0-9]{1,3})?';
const NUMERIC = new RegExp(`^${NUM}$`);
const COMPACT_PART = new RegExp(`(${NUM})(ms|s|m|h)`, 'y');
const ISO = new RegExp(`^PT(?=[0-9])(?:(${NUM})H)?(?:(${NUM})M)?(?:(${NUM})S)?$`);
const UNIT_SECONDS: Readonly<Record<string, number>> = { ms: 0.001, s: 1, m: 60, h: 3600 };

/**
 * The one duration parser: `value` in seconds, bare numbers counted in `numbers`, or
 * `undefined` when it is no duration of the grammar above (negative, non-finite, malformed).
 * @example
 * parseDuration('1m30s', 'seconds'); // 90
 * parseDuration(1500, 'milliseconds'); // 1.5
 */
export function parseDuration(value: unknown, numbers: DurationNumberUnit): number | undefined {
  const seconds = parse(value, numbers === 'seconds' ? 1 : 0.001);
  return seconds === undefined || !Number.isFinite(seconds) || seconds < 0 ? undefined : seconds;
}

function parse(value: unknown, numberSeconds: number): number | undefined {
  if (typeof value === 'number') return numberSeconds === 1 ? value : value * numberSeconds;
  if (typeof value !== 'string') return undefined;
  if (NUMERIC.test(value)) return numberSeconds === 1 ? Number(value) : Number(value) * numberSeconds;
  const iso = ISO.exec(value);
  if (iso) return Number(iso[1] ?? 0) * 3600 + Number(iso[2] ?? 0) * 60 + Number(iso[3] ?? 0);
  return parseCompact(value);
}

function parseCompact(text: string): number | undefined {
  if (text.length === 0) return undefined;
  let total = 0;
  COMPACT_PART.lastIndex = 0;
  while (COMPACT_PART.lastIndex < text.length) {
    const start = COMPACT_PART.lastIndex;
    const match = COMPACT_PART.exec(text);
    if (!match || match.index !== start) return undefined;
    total += Number(match[1]) * (UNIT_SECONDS[match[2] ?? ''] ?? Number.NaN);
  }
  return total;
}

/**
 * The API's heartbeat `ttl` in seconds (bare numbers are seconds; at most `MAX_TTL_SECONDS`),
 * or `undefined` when it is none.
 * @example
 * ttlSeconds('PT30S'); // 30
 */
export function ttlSeconds(value: unknown): number | undefined {
  const seconds = parseDuration(value, 'seconds');
  return seconds === undefined || seconds > MAX_TTL_SECONDS ? undefined : seconds;
}

/**
 * Milliseconds of a mock lever's `Duration` (bare numbers are milliseconds); throws a
 * `RangeError` for anything outside the grammar.
 * @example
 * durationMs('31s'); // 31000
 */
export function durationMs(value: Duration): number {
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) throw new RangeError(`A duration must be a non-negative number of ms, got ${value}`);
    return value;
  }
  const seconds = parseDuration(value, 'milliseconds');
  if (seconds === undefined) {
    throw new RangeError(`A duration looks like '31s', '500ms', '5m', '1h' or 'PT1M30S', got ${JSON.stringify(value)}`);
  }
  return Math.round(seconds * 1_000_000) / 1000;
}
