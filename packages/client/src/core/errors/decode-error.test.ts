import { describe, expect, it } from 'vitest';
import {
  ApiError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  GoneError,
  InternalServerError,
  NotFoundError,
  PayloadTooLargeError,
  PaymentRequiredError,
  PermissionDeniedError,
  PreconditionFailedError,
  PreconditionRequiredError,
  RateLimitError,
  ServiceUnavailableError,
  UnprocessableEntityError,
  UnsupportedMediaTypeError,
} from './api-error.js';
import { decodeApiError, decodeErrorBody, type ErrorResponse } from './decode-error.js';
import { Redactor } from '../redact.js';

const json = { 'content-type': 'application/json' };
const NOW = Date.parse('2026-11-29T15:00:00Z');

interface Case {
  name: string;
  given: ErrorResponse;
  want: Partial<Record<'type' | 'code' | 'param' | 'message' | 'docUrl' | 'requestId', string | undefined>> & {
    errors?: unknown;
    retryAfterMs?: number | undefined;
    messageMatches?: RegExp;
  };
}

const cases: Case[] = [
  {
    name: 'canonical envelope, every member',
    given: {
      status: 409,
      headers: { ...json, 'request-id': 'req_header' },
      bodyText: JSON.stringify({
        type: 'conflict_error',
        code: 'claim_held',
        param: 'key',
        message: 'The key is held by another claimant.',
        doc_url: 'https://docs.leasehold.example/errors#claim_held',
        request_id: 'req_body',
        errors: [{ code: 'held', message: 'held', param: 'key' }],
      }),
    },
    want: {
      type: 'conflict_error',
      code: 'claim_held',
      param: 'key',
      message: 'The key is held by another claimant.',
      docUrl: 'https://docs.leasehold.example/errors#claim_held',
      requestId: 'req_body',
      errors: [{ code: 'held', message: 'held', param: 'key' }],
    },
  },
  {
    name: 'canonical envelope without request_id falls back to Request-Id',
    given: { status: 404, headers: { ...json, 'Request-Id': 'req_h1' }, bodyText: '{"type":"not_found_error","code":"space_not_found","message":"No such space."}' },
    want: { type: 'not_found_error', code: 'space_not_found', message: 'No such space.', requestId: 'req_h1' },
  },
  {
    name: 'falls back to X-Request-Id',
    given: { status: 400, headers: { ...json, 'x-request-id': 'req_x' }, bodyText: '{"type":"invalid_request_error","message":"bad"}' },
    want: { requestId: 'req_x', code: undefined },
  },
  {
    name: 'nested {"error":{code,message,requestId}} (space-claims page)',
    given: { status: 409, headers: json, bodyText: '{"error":{"code":"claim_held","message":"Held.","requestId":"req_nested"}}' },
    want: { type: 'conflict_error', code: 'claim_held', message: 'Held.', requestId: 'req_nested' },
  },
  {
    name: 'nested error with string error code and top-level message',
    given: { status: 404, headers: json, bodyText: '{"error":"claim_not_found","message":"No claim."}' },
    want: { type: 'not_found_error', code: 'claim_not_found', message: 'No claim.' },
  },
  {
    name: 'bare {"error":"text"}',
    given: { status: 401, headers: json, bodyText: '{"error":"Unauthorized"}' },
    want: { type: 'authentication_error', code: undefined, message: 'Unauthorized' },
  },
  {
    name: 'kind instead of code (spool page)',
    given: { status: 410, headers: json, bodyText: '{"kind":"stale_token","message":"The lease no longer settles anything."}' },
    want: { type: 'gone_error', code: 'stale_token', message: 'The lease no longer settles anything.' },
  },
  {
    name: 'kind alone, no message',
    given: { status: 429, headers: { ...json, 'retry-after': '3' }, bodyText: '{"kind":"rate_limited"}' },
    want: { type: 'rate_limit_error', code: 'rate_limited', messageMatches: /429.*rate_limited/, retryAfterMs: 3000 },
  },
  {
    name: 'RFC 9457 problem+json with code extension',
    given: {
      status: 412,
      headers: { 'content-type': 'application/problem+json; charset=utf-8' },
      bodyText: JSON.stringify({
        type: 'https://docs.leasehold.example/errors#etag_mismatch',
        title: 'Precondition Failed',
        status: 412,
        detail: 'If-Match does not match the current ETag.',
        code: 'etag_mismatch',
        param: 'If-Match',
        request_id: 'req_p',
      }),
    },
    want: {
      type: 'precondition_error',
      code: 'etag_mismatch',
      param: 'If-Match',
      message: 'If-Match does not match the current ETag.',
      docUrl: 'https://docs.leasehold.example/errors#etag_mismatch',
      requestId: 'req_p',
    },
  },
  {
    name: 'problem+json: code from the type URI, title when no detail',
    given: { status: 409, headers: { 'content-type': 'application/problem+json' }, bodyText: '{"type":"https://errors.example/problems/claim-held","title":"Claim held","status":409}' },
    want: { type: 'conflict_error', code: 'claim_held', message: 'Claim held', docUrl: 'https://errors.example/problems/claim-held' },
  },
  {
    name: 'problem+json about:blank with invalid-params',
    given: {
      status: 400,
      headers: { 'content-type': 'application/problem+json' },
      bodyText: '{"type":"about:blank","title":"Bad Request","status":400,"invalid-params":[{"name":"ttl","reason":"must be positive"}]}',
    },
    want: { type: 'invalid_request_error', code: undefined, param: 'ttl', message: 'Bad Request', errors: [{ code: undefined, message: 'must be positive', param: 'ttl' }] },
  },
  {
    name: 'problem shape served as application/json',
    given: { status: 503, headers: json, bodyText: '{"type":"about:blank","title":"Unavailable","status":503,"detail":"Try later."}' },
    want: { type: 'unavailable_error', message: 'Try later.' },
  },
  {
    name: 'HTML page from a proxy',
    given: {
      status: 502,
      headers: { 'content-type': 'text/html' },
      bodyText: '<!DOCTYPE html><html><head><title>502 Bad Gateway</title><style>b{}</style></head><body><h1>502 Bad Gateway</h1><hr>nginx/1.25</body></html>',
    },
    want: { type: 'api_error', code: undefined, messageMatches: /^HTTP 502 Bad Gateway: a non-JSON response \(text\/html\): 502 Bad Gateway nginx\/1\.25$/ },
  },
  {
    name: 'plain text 503',
    given: { status: 503, headers: { 'content-type': 'text/plain', 'retry-after': '7' }, bodyText: 'upstream connect error or disconnect/reset before headers' },
    want: { type: 'unavailable_error', messageMatches: /^HTTP 503 Service Unavailable: a non-JSON response \(text\/plain\): upstream connect error/, retryAfterMs: 7000 },
  },
  {
    name: 'long text is truncated to a snippet',
    given: { status: 500, headers: {}, bodyText: 'x'.repeat(5000) },
    want: { messageMatches: /^HTTP 500 Internal Server Error: a non-JSON response \(no content type\): x{200}…$/ },
  },
  {
    name: 'empty body',
    given: { status: 500, headers: {}, bodyText: '' },
    want: { type: 'api_error', message: 'HTTP 500 Internal Server Error with an empty body.' },
  },
  {
    name: 'malformed JSON claiming to be JSON',
    given: { status: 500, headers: json, bodyText: '{"type": "api_err' },
    want: { type: 'api_error', messageMatches: /non-JSON response \(application\/json\): \{"type": "api_err/ },
  },
  {
    name: 'JSON of no known shape',
    given: { status: 418, headers: json, bodyText: '{"teapot":true}' },
    want: { type: 'invalid_request_error', messageMatches: /^HTTP 418: an unrecognized JSON error body: \{"teapot":true\}$/ },
  },
  {
    name: 'JSON array',
    given: { status: 400, headers: json, bodyText: '[1,2]' },
    want: { messageMatches: /unrecognized JSON error body: \[1,2\]/ },
  },
  {
    name: 'JSON string',
    given: { status: 400, headers: json, bodyText: '"bad things"' },
    want: { message: 'bad things' },
  },
  {
    name: 'JSON null',
    given: { status: 500, headers: json, bodyText: 'null' },
    want: { messageMatches: /unrecognized JSON error body: null/ },
  },
  {
    name: 'non-string members are ignored, numeric code kept',
    given: { status: 400, headers: json, bodyText: '{"type":42,"code":7,"message":{"x":1},"errors":"nope","detail":"d"}' },
    want: { type: 'invalid_request_error', code: '7', message: 'd', errors: [] },
  },
  {
    name: 'errors list with strings and path arrays',
    given: { status: 400, headers: json, bodyText: '{"type":"invalid_request_error","message":"2 problems","errors":["first",{"path":["body","ttl"],"message":"second"}]}' },
    want: { errors: [{ message: 'first' }, { code: undefined, message: 'second', param: 'body.ttl' }] },
  },
  {
    name: 'retry-after-ms wins over Retry-After',
    given: { status: 429, headers: { ...json, 'retry-after-ms': '1500', 'retry-after': '9' }, bodyText: '{"type":"rate_limit_error","code":"rate_limited","message":"slow down"}' },
    want: { retryAfterMs: 1500 },
  },
  {
    name: 'Retry-After as an HTTP-date',
    given: { status: 503, headers: { 'retry-after': 'Sun, 29 Nov 2026 15:00:05 GMT' }, bodyText: '' },
    want: { retryAfterMs: 5000 },
  },
];

describe('decodeErrorBody', () => {
  it.each(cases)('$name', ({ given, want }) => {
    const got = decodeErrorBody(given, NOW);
    const { messageMatches, ...exact } = want;
    for (const [member, value] of Object.entries(exact)) expect(got[member as keyof typeof got], member).toEqual(value);
    if (messageMatches) expect(got.message).toMatch(messageMatches);
    expect(got.status).toBe(given.status);
    expect(got.rawBody).toBe(given.bodyText);
  });

  it.each([
    ['undefined body', { status: 500, headers: {}, bodyText: undefined as unknown as string }],
    ['null headers', { status: 500, headers: null as unknown as Record<string, string>, bodyText: '{' }],
    ['NaN status', { status: Number.NaN, headers: {}, bodyText: 'x' }],
    ['binary garbage', { status: 502, headers: { 'content-type': 'application/json' }, bodyText: '\u0000\uFFFD{{{[[[' }],
    ['deeply nested', { status: 400, headers: json, bodyText: '{"error":'.repeat(5000) + '1' + '}'.repeat(5000) }],
  ])('never throws on garbage: %s', (_, given) => {
    expect(() => decodeApiError(given)).not.toThrow();
    expect(decodeApiError(given)).toBeInstanceOf(ApiError);
  });
});

describe('decodeApiError picks the class by status', () => {
  it.each([
    [400, BadRequestError, 'BadRequestError'],
    [401, AuthenticationError, 'AuthenticationError'],
    [402, PaymentRequiredError, 'PaymentRequiredError'],
    [403, PermissionDeniedError, 'PermissionDeniedError'],
    [404, NotFoundError, 'NotFoundError'],
    [409, ConflictError, 'ConflictError'],
    [410, GoneError, 'GoneError'],
    [412, PreconditionFailedError, 'PreconditionFailedError'],
    [413, PayloadTooLargeError, 'PayloadTooLargeError'],
    [415, UnsupportedMediaTypeError, 'UnsupportedMediaTypeError'],
    [422, UnprocessableEntityError, 'UnprocessableEntityError'],
    [428, PreconditionRequiredError, 'PreconditionRequiredError'],
    [429, RateLimitError, 'RateLimitError'],
    [500, InternalServerError, 'InternalServerError'],
    [502, InternalServerError, 'InternalServerError'],
    [503, ServiceUnavailableError, 'ServiceUnavailableError'],
    [504, InternalServerError, 'InternalServerError'],
    [405, ApiError, 'ApiError'],
    [408, ApiError, 'ApiError'],
    [418, ApiError, 'ApiError'],
  ] as const)('%i → %o', (status, Class, name) => {
    const error = decodeApiError({ status, headers: {}, bodyText: '{"type":"x_error","message":"m"}' });
    expect(error).toBeInstanceOf(Class);
    expect(error.constructor).toBe(Class);
    expect(error.name).toBe(name);
    expect(error.status).toBe(status);
  });

  it('a 503 is also an InternalServerError', () => {
    expect(decodeApiError({ status: 503, headers: {}, bodyText: '' })).toBeInstanceOf(InternalServerError);
  });

  it('masks secrets in message, errors, rawBody and headers', () => {
    const redactor = new Redactor({ secrets: ['lh_live_supersecretkey'] });
    redactor.add('sl_Zq8Vn4Tx2Kp7Rm3Wb9Yc1Hd');
    const error = decodeApiError(
      {
        status: 400,
        headers: { ...json, 'spooler-lease': 'sl_Zq8Vn4Tx2Kp7Rm3Wb9Yc1Hd', 'X-Echo': 'Bearer lh_live_supersecretkey' },
        bodyText: JSON.stringify({
          type: 'invalid_request_error',
          message: 'Key lh_live_supersecretkey cannot renew sl_Zq8Vn4Tx2Kp7Rm3Wb9Yc1Hd',
          errors: [{ message: 'token 22222222-2222-4222-8222-222222222222 is malformed' }],
        }),
      },
      { redactor },
    );
    const everything = JSON.stringify({ m: error.message, e: error.errors, r: error.rawBody, h: error.headers, s: String(error), st: error.stack });
    expect(everything).not.toContain('supersecretkey');
    expect(everything).not.toContain('Zq8Vn4Tx2Kp7Rm3Wb9Yc1Hd');
    expect(everything).not.toContain('22222222-2222-4222-8222-222222222222');
    expect(error.headers['spooler-lease']).toBe('[REDACTED]');
    expect(error.headers['x-echo']).toBe('Bearer [REDACTED]');
  });
});
