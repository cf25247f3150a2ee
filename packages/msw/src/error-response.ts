import { errorEnvelope, type ErrorCode, type ErrorEnvelope } from '@leasehold/protocol';
import type { HttpResponse } from 'msw';

/** The error envelope of every 4xx/5xx answer (canonical members, `kind` and `error`). */
export type LeaseholdErrorEnvelope = ErrorEnvelope;

/** What goes into an error answer besides its status. */
export interface LeaseholdErrorOptions {
  /** Machine-readable reason (`claim_held`, `rate_limited`, `stale_token`, ...); omit for a blocked key's 403. */
  code?: ErrorCode;
  /** Human-readable message. Default: a generic one. */
  message?: string;
  /** The request field at fault. */
  param?: string;
  /** `Retry-After` in whole seconds (for 429 and 503). */
  retryAfterSeconds?: number;
  /** Extra response headers. */
  headers?: Record<string, string>;
  /**
   * The API reference `doc_url` links into (`https://api.test/docs`, as the reference server
   * serves it under its base URL). Without it the envelope has no `doc_url`.
   */
  docsUrl?: string;
}

/**
 * An error answer shaped exactly as the API sends it — built by the reference server's own
 * envelope builder: `type` for the status, `code`, `kind`, `error: { code, message, requestId }`,
 * `request_id` equal to the `Request-Id` header, a `Date` — for typed overrides.
 * @example
 * mswServer.use(lh.post('/v1/spools/{spool}/ack', () => leaseholdError(410, { code: 'stale_token' })));
 * @see https://mswjs.io/docs/api/http-response
 */
export function leaseholdError(status: number, options: LeaseholdErrorOptions = {}): HttpResponse<LeaseholdErrorEnvelope> {
  if (!Number.isInteger(status) || status < 400 || status > 599) throw new RangeError(`An error status lies in 400–599, got ${status}`);
  const requestId = randomRequestId();
  const envelope = errorEnvelope(
    { status, code: options.code, message: options.message ?? `Mocked ${status} answer.`, param: options.param },
    { requestId, docsUrl: options.docsUrl },
  );
  const headers: Record<string, string> = { 'Request-Id': requestId, Date: new Date().toUTCString(), ...options.headers };
  if (options.retryAfterSeconds !== undefined) headers['Retry-After'] = String(options.retryAfterSeconds);
  const text = JSON.stringify(envelope);
  // A Fetch Response, as every answer of the mock is: msw's `HttpResponse` adds nothing at run time
  // but a status text, and only msw's main entry exports it, which loads graphql (~70 ms more at the
  // import of every test file). The type is msw's, so typed overrides take it as their answer.
  const response = new Response(text, {
    status,
    headers: { 'Content-Type': 'application/json', 'Content-Length': String(new TextEncoder().encode(text).byteLength), ...headers },
  });
  return response as HttpResponse<LeaseholdErrorEnvelope>;
}

/** `req_` and 16 base64url characters of Web Crypto randomness (the same in Node and browsers). */
function randomRequestId(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(12));
  return `req_${btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_')}`;
}
