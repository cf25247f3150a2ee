import { describe, expect, it } from 'vitest';
import { ManualClock, RealClock, toUtc } from './clock.js';

describe('ManualClock', () => {
  it('moves only when told', () => {
    const clock = new ManualClock(1_000);
    expect(clock.now()).toBe(1_000);
    expect(clock.advance(500)).toBe(1_500);
    expect(clock.now()).toBe(1_500);
    expect(clock.set(10)).toBe(10);
  });

  it.each([[-1], [Number.NaN], [Number.POSITIVE_INFINITY]])('refuses advance(%s)', (ms) => {
    expect(() => new ManualClock(0).advance(ms)).toThrow(RangeError);
  });
});

describe('RealClock', () => {
  it('reads the wall clock', () => {
    const before = Date.now();
    const now = new RealClock().now();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });
});

describe('toUtc', () => {
  it('formats RFC 3339 UTC', () => {
    expect(toUtc(Date.UTC(2026, 9, 19, 9, 15))).toBe('2026-10-19T09:15:00Z');
  });

  it('keeps whole seconds, rounding down (never later than the instant it stands for)', () => {
    expect(toUtc(Date.UTC(2026, 9, 19, 9, 15, 0, 999))).toBe('2026-10-19T09:15:00Z');
    expect(toUtc(Date.UTC(2026, 9, 19, 9, 14, 59, 1))).toBe('2026-10-19T09:14:59Z');
  });
});
