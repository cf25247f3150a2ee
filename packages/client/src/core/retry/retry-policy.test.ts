import { describe, expect, it } from 'vitest';
import { ApiError, type ApiErrorInit } from '../errors/api-error.js';
import { AbortError, ConnectionError, TimeoutError } from '../errors/connection-errors.js';
import { LeaseLostError } from '../errors/lease-lost-error.js';
import { parseRetryAfter } from './retry-after.js';
import { RetryPolicy } from './retry-policy.js';
import { isRetryableError } from './retryable.js';

const apiError = (status: number, extra: Partial<ApiErrorInit> = {}): ApiError =>
  ApiError.from({ status, type: 'x', message: 'm', ...extra });

describe('isRetryableError', () => {
  it.each([
    ['connection error', new ConnectionError(), true],
    ['attempt timeout', new TimeoutError('attempt', 100), true],
    ['deadline timeout', new TimeoutError('deadline', 100), false],
    ['abort', new AbortError(), false],
    ['lost lease', new LeaseLostError('stale', 'clm_1'), false],
    ['plain Error', new Error('x'), false],
    ['408', apiError(408), true],
    ['429', apiError(429, { code: 'rate_limited' }), true],
    ['500', apiError(500), true],
    ['502', apiError(502), true],
    ['503', apiError(503), true],
    ['504', apiError(504), true],
    ['409 idempotency_in_flight', apiError(409, { code: 'idempotency_in_flight' }), true],
    ['409 claim_held', apiError(409, { code: 'claim_held' }), false],
    ['409 idempotency_key_reused', apiError(409, { code: 'idempotency_key_reused' }), false],
    ['409 without code', apiError(409), false],
    ['400', apiError(400), false],
    ['401', apiError(401), false],
    ['403', apiError(403), false],
    ['404', apiError(404), false],
    ['410 stale_token', apiError(410, { code: 'stale_token' }), false],
    ['412', apiError(412), false],
    ['422', apiError(422), false],
    ['428', apiError(428), false],
  ])('%s → %s', (_, error, want) => {
    expect(isRetryableError(error)).toBe(want);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-29T15:00:00Z');
  it.each([
    ['seconds', { 'retry-after': '2' }, 2000],
    ['fractional seconds', { 'retry-after': '1.5' }, 1500],
    ['zero', { 'retry-after': '0' }, 0],
    ['HTTP-date ahead', { 'retry-after': 'Sun, 29 Nov 2026 15:00:30 GMT' }, 30_000],
    ['HTTP-date in the past', { 'retry-after': 'Sun, 29 Nov 2026 14:00:00 GMT' }, 0],
    ['RFC 850 date', { 'retry-after': 'Sunday, 29-Nov-26 15:00:10 GMT' }, 10_000],
    ['retry-after-ms', { 'retry-after-ms': '250' }, 250],
    ['retry-after-ms wins', { 'retry-after-ms': '250', 'retry-after': '9' }, 250],
    ['bad retry-after-ms falls back', { 'retry-after-ms': 'soon', 'retry-after': '1' }, 1000],
    ['negative', { 'retry-after': '-5' }, undefined],
    ['garbage', { 'retry-after': 'soon' }, undefined],
    ['number-ish garbage', { 'retry-after': '12 parsecs' }, undefined],
    ['absent', {}, undefined],
  ])('%s', (_, headers, want) => {
    expect(parseRetryAfter(headers, now)).toBe(want);
  });
});

describe('RetryPolicy', () => {
  it('defaults: 2 retries, 0.5 s base, 8 s cap, 60 s Retry-After cap', () => {
    const policy = new RetryPolicy();
    expect([policy.maxRetries, policy.baseDelayMs, policy.maxDelayMs, policy.maxRetryAfterMs]).toEqual([2, 500, 8000, 60_000]);
  });

  it.each([
    [0, 1, 0],
    [0.5, 1, 250],
    [0.999, 1, 499],
    [0.5, 2, 500],
    [0.5, 3, 1000],
    [0.5, 5, 4000],
    [0.5, 6, 4000],
    [0.5, 40, 4000],
    [1, 6, 8000],
  ])('full jitter: random %f, retry %i → %i ms', (random, retry, want) => {
    expect(new RetryPolicy({ random: () => random }).delayMs(retry, new ConnectionError())).toBe(want);
  });

  it('honours the server wait instead of backoff, capped', () => {
    const policy = new RetryPolicy({ random: () => 0.5, maxRetryAfterMs: 10_000 });
    expect(policy.delayMs(1, apiError(429, { retryAfterMs: 2000 }))).toBe(2000);
    expect(policy.delayMs(1, apiError(503, { retryAfterMs: 0 }))).toBe(0);
    expect(policy.delayMs(1, apiError(429, { retryAfterMs: 3_600_000 }))).toBe(10_000);
    expect(policy.delayMs(1, apiError(503))).toBe(250);
  });

  it('decides: retries until maxRetries, never a non-retryable error', () => {
    const policy = new RetryPolicy({ maxRetries: 2, random: () => 0.5 });
    expect(policy.decide(apiError(500), 1)).toEqual({ retry: true, delayMs: 250 });
    expect(policy.decide(apiError(500), 2)).toEqual({ retry: true, delayMs: 500 });
    expect(policy.decide(apiError(500), 3)).toEqual({ retry: false, reason: 'retries_exhausted' });
    expect(policy.decide(apiError(500), 3, { maxRetries: 5 })).toEqual({ retry: true, delayMs: 1000 });
    expect(policy.decide(apiError(400), 1)).toEqual({ retry: false, reason: 'not_retryable' });
    expect(new RetryPolicy({ maxRetries: 0 }).decide(apiError(500), 1)).toEqual({ retry: false, reason: 'retries_exhausted' });
  });

  it('decides: a wait that would pass the deadline is not taken', () => {
    const policy = new RetryPolicy({ random: () => 0.5 });
    expect(policy.decide(apiError(429, { retryAfterMs: 5000 }), 1, { remainingMs: 4000 })).toEqual({ retry: false, reason: 'deadline' });
    expect(policy.decide(apiError(429, { retryAfterMs: 3000 }), 1, { remainingMs: 4000 })).toEqual({ retry: true, delayMs: 3000 });
  });

  it('ignores nonsense options', () => {
    const policy = new RetryPolicy({ maxRetries: -1, baseDelayMs: Number.NaN });
    expect([policy.maxRetries, policy.baseDelayMs]).toEqual([2, 500]);
  });
});
