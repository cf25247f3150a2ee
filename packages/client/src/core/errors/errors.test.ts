import { describe, expect, it } from 'vitest';
import * as errors from './index.js';
import { AbortError, ApiError, ConnectionError, LeaseholdError, LeaseLostError, TimeoutError, UnexpectedResponseError, InvalidArgumentError } from './index.js';

describe('error classes', () => {
  it('every class has a stable name equal to its export name, and extends LeaseholdError', () => {
    const classes = Object.entries(errors).filter(([, v]) => typeof v === 'function' && /^[A-Z]/.test(v.name) && v.prototype instanceof Error || v === LeaseholdError);
    expect(classes.length).toBe(23);
    for (const [exportName, Class] of classes) {
      const instance =
        Class.prototype instanceof ApiError || Class === ApiError
          ? new (Class as typeof ApiError)({ status: 400, type: 't', message: 'm' })
          : Class === LeaseLostError
            ? new LeaseLostError('expired', 'clm_1')
            : Class === TimeoutError
              ? new TimeoutError('attempt', 1)
              : Class === UnexpectedResponseError
                ? new UnexpectedResponseError({ status: 201, code: 'unexpected_response_shape', message: 'm' })
                : Class === InvalidArgumentError
                  ? new InvalidArgumentError('baseUrl', 'm')
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

  it('UnexpectedResponseError carries status, code and request id, masks secret headers, redacts and cuts the body', () => {
    const error = new UnexpectedResponseError({
      status: 201,
      code: 'unexpected_response_shape',
      message: "The acquire answer's leaseSeconds is not a positive number of seconds.",
      requestId: 'req_1',
      headers: { 'Request-Id': 'req_1', 'Spooler-Lease': 'sl_secretsecretsecret' },
      rawBody: `{"token":"lht_abcdefabcdefabcdef"}${'x'.repeat(5000)}`,
    });
    expect([error.status, error.code, error.requestId]).toEqual([201, 'unexpected_response_shape', 'req_1']);
    expect(error.message).toBe("The acquire answer's leaseSeconds is not a positive number of seconds. (HTTP 201, request req_1)");
    expect(error.headers).toEqual({ 'request-id': 'req_1', 'spooler-lease': '[REDACTED]' });
    expect(error.rawBody).not.toContain('lht_abcdef');
    expect(error.rawBody.length).toBeLessThanOrEqual(2 * 1024 + 1);
    expect(error).not.toBeInstanceOf(ApiError);
  });

  it('redacts any message, even without a redactor', () => {
    expect(new ConnectionError('connect to proxy with Bearer abc123 failed').message).toBe('connect to proxy with Bearer [REDACTED] failed');
  });
});
