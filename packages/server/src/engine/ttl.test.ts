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
  ];
  it.each(valid)('parses %j as %d seconds', (given, want) => {
    expect(parseTtl(given)).toBeCloseTo(want, 9);
  });

  const invalid: unknown[] = [-1, Number.NaN, Number.POSITIVE_INFINITY, '', 'abc', '30x', 's', '5 m', 'PT', 'P1D', '-5', null, undefined, {}, [], true, 1e12];
  it.each(invalid)('refuses %j with invalid_ttl on ttl', (given) => {
    try {
      parseTtl(given);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(EngineError);
      expect((error as EngineError).code).toBe('invalid_ttl');
      expect((error as EngineError).param).toBe('ttl');
    }
  });
});
