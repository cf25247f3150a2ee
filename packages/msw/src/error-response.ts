import { randomBytes } from 'node:crypto';
import { errorTypeByStatus } from '@leasehold/server';
import { HttpResponse } from 'msw';
import type { components } from './generated/openapi.js';

/** The canonical error envelope of every 4xx/5xx answer. */
export type LeaseholdErrorEnvelope = components['schemas']['ErrorEnvelope'];

/** What goes into an error answer besides its status. */
export interface LeaseholdErrorOptions {
  /** Machine-readable reason (`claim_held`, `rate_limited`, `stale_token`, ...). */
  code?: string;
  /** Human-readable message. Default: a generic one. */
  message?: string;
  /** The request field at fault. */
  param?: string;
  /** `Retry-After` in whole seconds (for 429 and 503). */
  retryAfterSeconds?: number;
  /** Extra response headers. */
  headers?: Record<string, string>;
}


/**
 * An error answer shaped as the API sends it — the envelope `type` for the status, `code`,
 * `request_id` equal to the `Request-Id` header, a `Date` — for typed overrides.
 * @example
 * mswServer.use(lh.post('/v1/spools/{spool}/ack', () => leaseholdError(410, { code: 'stale_token' })));
 */
export function leaseholdError(status: number, options: LeaseholdErrorOptions = {}): HttpResponse<LeaseholdErrorEnvelope> {
  if (!Number.isInteger(status) || status < 400 || status > 599) throw new RangeError(`An error status lies in 400–599, got ${status}`);
  const requestId = `req_${randomBytes(12).toString('base64url')}`;
  const envelope: LeaseholdErrorEnvelope = {
    type: (errorTypeByStatus[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error')) as LeaseholdErrorEnvelope['type'],
    ...(options.code === undefined ? {} : { code: options.code }),
    ...(options.param === undefined ? {} : { param: options.param }),
    message: options.message ?? `Mocked ${status} answer.`,
    request_id: requestId,
  };
  const headers: Record<string, string> = { 'Request-Id': requestId, Date: new Date().toUTCString(), ...options.headers };
  if (options.retryAfterSeconds !== undefined) headers['Retry-After'] = String(options.retryAfterSeconds);
  return HttpResponse.json(envelope, { status, headers });
}
