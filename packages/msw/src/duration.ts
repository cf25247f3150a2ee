const units: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** A span of time: milliseconds, or a string such as `'500ms'`, `'31s'`, `'5m'`, `'1h'`. */
export type Duration = number | `${number}${'ms' | 's' | 'm' | 'h'}`;

/** Milliseconds of a `Duration`; throws a `RangeError` for a negative or malformed one. */
export function durationMs(duration: Duration): number {
  if (typeof duration === 'number') {
    if (!Number.isFinite(duration) || duration < 0) throw new RangeError(`A duration must be a non-negative number of ms, got ${duration}`);
    return duration;
  }
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(duration);
  const unit = match?.[2] === undefined ? undefined : units[match[2]];
  if (!match || unit === undefined) throw new RangeError(`A duration looks like '31s', '500ms', '5m' or '1h', got ${JSON.stringify(duration)}`);
  return Number(match[1]) * unit;
}
