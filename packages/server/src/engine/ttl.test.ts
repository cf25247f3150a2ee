import { describe, expect, it } from 'vitest';
import { EngineError } from './errors.js';
import { parseTtl } from './ttl.js';

describe('parseTtl', () => {
  const valid: Array<[unknown, number]> = [
    [30, 30],
    [0, 0],
    [2.5, 2.5],
    ['30', 30],
    ['2.5', 2.5],
    ['30s', 30],
    ['5m', 300],
    ['1h', 3600],
    ['1500ms', 1.5],
    ['1m30s', 90],
    ['1h1m1s', 3661],
    ['PT30S', 30],
    ['PT1M30S', 90],
    ['PT1H', 3600],
    ['PT0.5S', 0.5],
    // Any JSON number is a duration: below 0 counts as 0, above 10⁹ as 10⁹ (space claims clamp to 5–600 s anyway).
    [-1, 0],
    [-0.5, 0],
    [1e12, 1e9],
  ];
  it.each(valid)('parses %j as %d seconds', (given, want) => {
    expect(parseTtl(given)).toBeCloseTo(want, 9);
  });

  it.each([[null], [undefined]])('reads %j as null: each lease for its own term', (given) => {
    expect(parseTtl(given)).toBeNull();
  });

  const invalid: unknown[] = [Number.NaN, Number.POSITIVE_INFINITY, '', 'abc', '30x', 's', '5 m', 'PT', 'P1D', '-5', {}, [], true, false];
  it.each(invalid)('refuses %j with invalid_ttl on ttl', (given) => {
    try {
      parseTtl(given);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(EngineError);
      expect((error as EngineError).code).toBe('invalid_ttl');
      expect((error as EngineError).param).toBe('ttl');
      expect((error as EngineError).message).toMatch(/leave it out to renew each lease for its own term\. Nothing was renewed\./);
    }
  });
});
