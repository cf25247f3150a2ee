import { describe, expect, it } from 'vitest';
import { ManualClock } from './clock.js';
import { EngineError } from './errors.js';
import { normalizeIdempotencyKey, requestFingerprint } from './idempotency-key.js';
import { IDEMPOTENCY_TTL_MS, IdempotencyStore } from './idempotency-store.js';
import { codeOf } from './test-fixtures.js';

describe('normalizeIdempotencyKey', () => {
  const valid: Array<[string, string]> = [
    ['abc', 'abc'],
    ['"abc"', 'abc'],
    ['"a\\"b\\\\c"', 'a"b\\c'],
    ['0d1e6c52-7d8e-4b8f-9a51-3b5c1f2e4a77', '0d1e6c52-7d8e-4b8f-9a51-3b5c1f2e4a77'],
    ['x'.repeat(255), 'x'.repeat(255)],
    ['with space', 'with space'],
  ];
  it.each(valid)('%j → %j', (given, want) => {
    expect(normalizeIdempotencyKey(given)).toBe(want);
  });

  const invalid: unknown[] = ['', '""', 'x'.repeat(256), 'é', 'tab\there', 'nl\n', undefined, 42];
  it.each(invalid)('refuses %j', (given) => {
    try {
      normalizeIdempotencyKey(given);
      expect.unreachable();
    } catch (error) {
      expect((error as EngineError).code).toBe('invalid_idempotency_key');
      expect((error as EngineError).param).toBe('Idempotency-Key');
    }
  });
});

describe('requestFingerprint', () => {
  it('depends on method, path and body', () => {
    const base = requestFingerprint('POST', '/v1/a', '{"x":1}');
    expect(requestFingerprint('post', '/v1/a', '{"x":1}')).toBe(base);
    expect(requestFingerprint('PUT', '/v1/a', '{"x":1}')).not.toBe(base);
    expect(requestFingerprint('POST', '/v1/b', '{"x":1}')).not.toBe(base);
    expect(requestFingerprint('POST', '/v1/a', '{"x":2}')).not.toBe(base);
    expect(requestFingerprint('POST', '/v1/a', new TextEncoder().encode('{"x":1}'))).toBe(base);
    expect(base).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('IdempotencyStore', () => {
  it('runs once, replays after completion, refuses reuse and in-flight repeats', () => {
    const store = new IdempotencyStore<{ status: number }>(new ManualClock(0));
    expect(store.begin('c1', 'k', 'f1')).toEqual({ kind: 'new' });
    expect(codeOf(() => store.begin('c1', 'k', 'f1'))).toBe('idempotency_in_flight');
    expect(codeOf(() => store.begin('c1', 'k', 'f2'))).toBe('idempotency_key_reused');
    store.complete('c1', 'k', { status: 201 });
    expect(store.begin('c1', 'k', 'f1')).toEqual({ kind: 'replay', response: { status: 201 } });
    expect(codeOf(() => store.begin('c1', 'k', 'f2'))).toBe('idempotency_key_reused');
    expect(store.begin('c2', 'k', 'f2')).toEqual({ kind: 'new' });
  });

  it('forgets abandoned requests so a retry runs', () => {
    const store = new IdempotencyStore(new ManualClock(0));
    store.begin('c', 'k', 'f');
    store.abandon('c', 'k');
    expect(store.begin('c', 'k', 'f')).toEqual({ kind: 'new' });
    store.complete('c', 'k', 'done');
    store.abandon('c', 'k'); // completed records stay
    expect(store.begin('c', 'k', 'f')).toEqual({ kind: 'replay', response: 'done' });
  });

  it('expires records after 24 hours', () => {
    const clock = new ManualClock(0);
    const store = new IdempotencyStore(clock);
    store.begin('c', 'a', 'f');
    store.complete('c', 'a', 1);
    clock.advance(1000);
    store.begin('c', 'b', 'f');
    expect(store.size).toBe(2);
    clock.advance(IDEMPOTENCY_TTL_MS - 1000);
    expect(store.size).toBe(1);
    expect(store.begin('c', 'a', 'other')).toEqual({ kind: 'new' });
    clock.advance(1000);
    expect(codeOf(() => store.begin('c', 'a', 'f'))).toBe('idempotency_key_reused');
  });
});
