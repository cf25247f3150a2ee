import { describe, expect, it } from 'vitest';
import { durationMs, parseDuration, ttlSeconds } from './duration.js';

describe('the one duration grammar', () => {
  it.each([
    { given: 30, numbers: 'seconds', want: 30 },
    { given: 1500, numbers: 'milliseconds', want: 1.5 },
    { given: '30', numbers: 'seconds', want: 30 },
    { given: '2.5', numbers: 'seconds', want: 2.5 },
    { given: '30s', numbers: 'seconds', want: 30 },
    { given: '1500ms', numbers: 'seconds', want: 1.5 },
    { given: '5m', numbers: 'seconds', want: 300 },
    { given: '1h', numbers: 'seconds', want: 3600 },
    { given: '1m30s', numbers: 'seconds', want: 90 },
    { given: 'PT30S', numbers: 'seconds', want: 30 },
    { given: 'PT1M30S', numbers: 'seconds', want: 90 },
    { given: 'PT1H', numbers: 'seconds', want: 3600 },
  ] as const)('$given ($numbers) is $want s', ({ given, numbers, want }) => {
    expect(parseDuration(given, numbers)).toBe(want);
  });

  it.each(['soon', '30x', 'P30S', 'PT', '-5', '', '5 s', '1.2345s', Number.NaN, -1, Number.POSITIVE_INFINITY, true, null, {}, [30]])(
    '%j is no duration',
    (given) => {
      expect(parseDuration(given, 'seconds')).toBeUndefined();
    },
  );

  it('caps the API ttl at 10⁹ seconds', () => {
    expect(ttlSeconds(1_000_000_000)).toBe(1_000_000_000);
    expect(ttlSeconds(1_000_000_001)).toBeUndefined();
  });

  it('reads the mock levers in milliseconds', () => {
    expect(durationMs(250)).toBe(250);
    expect(durationMs('500ms')).toBe(500);
    expect(durationMs('31s')).toBe(31_000);
    expect(durationMs('1.5s')).toBe(1_500);
    expect(durationMs('PT1M')).toBe(60_000);
    expect(() => durationMs(-1)).toThrow(RangeError);
    expect(() => durationMs('soon' as '1s')).toThrow(RangeError);
  });
});
