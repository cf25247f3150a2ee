import { describe, expect, it } from 'vitest';
import * as errors from './errors.js';
import { AbortError, ApiError, ConnectionError, LeaseholdError, LeaseLostError, TimeoutError } from './errors.js';

describe('error classes', () => {
  it('every class has a stable name equal to its export name, and extends LeaseholdError', () => {
    const classes = Object.entries(errors).filter(([, v]) => typeof v === 'function' && /^[A-Z]/.test(v.name) && v.prototype instanceof Error || v === LeaseholdError);
    expect(classes.length).toBe(21);
    for (const [exportName, Class] of classes) {
      const instance =
        Class.prototype instanceof ApiError || Class === ApiError
          ? new (Class as typeof ApiError)({ status: 400, type: 't', message: 'm' })
          : Class === LeaseLostError
            ? new LeaseLostError('expired', 'clm_1')
            : Class === TimeoutError
              ? new TimeoutError('attempt', 1)
              : new (Class as typeof ConnectionError)('m');
      expect(instance.name).toBe(exportName);
      expect(instance).toBeInstanceOf(LeaseholdError);
      expect(String(instance).startsWith(`${exportName}: `)).toBe(true);
    }
  });

  it('ApiError defaults: empty errors, lowercase headers, redacted raw body', () => {
    const error = new ApiError({ status: 400, type: 'invalid_request_error', message: 'm', headers: { 'Request-Id': 'r', Authorization: 'Bearer x' }, rawBody: 'Bearer abcdef' });
    expect(error.errors).toEqual([]);
    expect(error.headers).toEqual({ 'request-id': 'r', authorization: '[REDACTED]' });
    expect(error.rawBody).toBe('Bearer [REDACTED]');
    expect(error.code).toBeUndefined();
  });

  it('cuts a huge raw body', () => {
    const error = new ApiError({ status: 502, type: 'api_error', message: 'm', rawBody: 'x'.repeat(100_000) });
    expect(error.rawBody.length).toBe(16 * 1024 + 1);
  });

  it('timeouts and aborts are distinct', () => {
    const timeout = new TimeoutError('attempt', 50);
    expect(timeout).not.toBeInstanceOf(AbortError);
    expect(new AbortError()).not.toBeInstanceOf(TimeoutError);
    expect(timeout.message).toBe('Request timed out after 50 ms.');
    expect(new TimeoutError('deadline', 900).message).toBe('Request deadline of 900 ms exceeded.');
  });

  it('LeaseLostError carries reason, claim id and cause', () => {
    const cause = new Error('410');
    const error = new LeaseLostError('stale', 'clm_7Zp2', { cause });
    expect([error.reason, error.claimId, error.cause, error.message]).toEqual(['stale', 'clm_7Zp2', cause, 'Lease clm_7Zp2 is no longer held (stale).']);
  });

  it('redacts any message, even without a redactor', () => {
    expect(new ConnectionError('connect to proxy with Bearer abc123 failed').message).toBe('connect to proxy with Bearer [REDACTED] failed');
  });
});
