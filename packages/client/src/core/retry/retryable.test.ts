import { describe, expect, it } from 'vitest';
import { ConnectionError, TimeoutError } from '../errors/index.js';
import { isTransientHeartbeatError, retryAfterMsOf } from './retryable.js';

/** An error shaped like the SDK's API errors. */
function apiError(status: number, code?: string, retryAfterMs?: number): Error {
  return Object.assign(new Error(`HTTP ${status}${code ? ` ${code}` : ''}`), { status, code, retryAfterMs });
}

describe('isTransientHeartbeatError', () => {
  const table: Array<{ given: unknown; want: boolean }> = [
    { given: new ConnectionError(), want: true },
    { given: new TimeoutError('attempt', 1000), want: true },
    { given: new TypeError('fetch failed'), want: true },
    { given: apiError(500), want: true },
    { given: apiError(503), want: true },
    { given: apiError(429, 'rate_limited'), want: true },
    { given: apiError(408), want: true },
    { given: apiError(409, 'idempotency_in_flight'), want: true },
    { given: apiError(400, 'invalid_ttl'), want: false },
    { given: apiError(401), want: false },
    { given: apiError(402, 'account_suspended'), want: false },
    { given: apiError(403, 'permission_denied'), want: false },
    { given: apiError(404), want: false },
  ];
  it.each(table)('$given.message → $want', ({ given, want }) => {
    expect(isTransientHeartbeatError(given)).toBe(want);
  });
});

describe('retryAfterMsOf', () => {
  it('reads retryAfterMs when it is a non-negative number', () => {
    expect(retryAfterMsOf(apiError(429, 'rate_limited', 2000))).toBe(2000);
    expect(retryAfterMsOf(apiError(503))).toBeUndefined();
    expect(retryAfterMsOf({ retryAfterMs: -1 })).toBeUndefined();
    expect(retryAfterMsOf('nope')).toBeUndefined();
  });
});
