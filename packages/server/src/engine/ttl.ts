import { EngineError } from './errors.js';

const MAX_SECONDS = 1_000_000_000;
const NUMERIC = /^[0-9]{1,9}(\.[0-9]{1,3})?$/;
const NUM = '[0-9]{1,9}(?:\\.[0-9]{1,3})?';
const COMPACT_PART = new RegExp(`(${NUM})(ms|s|m|h)`, 'y');
const ISO = new RegExp(`^PT(?=[0-9])(?:(${NUM})H)?(?:(${NUM})M)?(?:(${NUM})S)?$`);
const UNIT_SECONDS: Readonly<Record<string, number>> = { ms: 0.001, s: 1, m: 60, h: 3600 };

/**
 * Parse a heartbeat `ttl` into seconds: a number ≥ 0, a numeric string (`"30"`), a duration
 * string (`"30s"`, `"5m"`, `"1h"`, `"1500ms"`, `"1m30s"`) or ISO 8601 (`"PT30S"`, `"PT1M30S"`).
 * Anything else throws `invalid_ttl` with `param: "ttl"`.
 * @example
 * parseTtl('1m30s'); // 90
 */
export function parseTtl(value: unknown): number {
  const seconds = parse(value);
  if (seconds === undefined || !Number.isFinite(seconds) || seconds < 0 || seconds > MAX_SECONDS) {
    throw new EngineError(
      'invalid_ttl',
      'ttl must be a number of seconds, a numeric string, or a duration such as "30s", "5m" or "PT30S".',
      'ttl',
    );
  }
  return seconds;
}

function parse(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string') return undefined;
  const text = value;
  if (NUMERIC.test(text)) return Number(text);
  const iso = ISO.exec(text);
  if (iso) return Number(iso[1] ?? 0) * 3600 + Number(iso[2] ?? 0) * 60 + Number(iso[3] ?? 0);
  return parseCompact(text);
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
