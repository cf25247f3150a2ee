import { LeaseholdError } from './leasehold-error.js';
import { redact, REDACTED, SECRET_HEADER_NAMES, type Redactor } from '../redact.js';

/** Why an answer could not be used. */
export type UnexpectedResponseReason = 'invalid_response_body' | 'unexpected_status' | 'unexpected_response_shape';

/** Everything an {@link UnexpectedResponseError} is built from. */
export interface UnexpectedResponseInit {
  /** The answer's HTTP status (a 2xx). */
  status: number;
  /** Why it is unusable. */
  code: UnexpectedResponseReason;
  /** What is wrong with it (no secrets: it names fields, not their values). */
  message: string;
  /** The `Request-Id` header. */
  requestId?: string | undefined;
  /** Response headers, lowercase names; secret ones are masked on the error. */
  headers?: Readonly<Record<string, string>> | undefined;
  /** The body as received; stored redacted and cut to 2 KiB. */
  rawBody?: string | undefined;
  redactor?: Redactor | undefined;
  cause?: unknown;
}

const MAX_RAW_BODY = 2 * 1024;

/**
 * The server answered with a success status, but not with an answer the client can use: a body
 * that is not JSON, a status the operation never answers (a 204 where a body is due), or a body
 * missing what the client needs (`201 null`, no `leaseSeconds`, a number that is not finite).
 * Never retried (a write may have been committed); an `operationId`'s stored key is kept, so a
 * later retry replays the same operation. A lease such an answer granted is not tracked: no
 * heartbeat names it, so it expires at the end of its term.
 * @example
 * try { await lh.tasks.get(42); } catch (e) { if (e instanceof UnexpectedResponseError) console.error('bad answer', { status: e.status, requestId: e.requestId }); }
 */
export class UnexpectedResponseError extends LeaseholdError {
  override name = 'UnexpectedResponseError';
  /** The answer's HTTP status. */
  readonly status: number;
  /** `invalid_response_body`, `unexpected_status` or `unexpected_response_shape`. */
  readonly code: UnexpectedResponseReason;
  /** The `Request-Id` header of the answer, if any. */
  readonly requestId: string | undefined;
  /** Response headers, lowercase names, secret headers masked. */
  readonly headers: Readonly<Record<string, string>>;
  /** The response body, redacted, at most 2 KiB. */
  readonly rawBody: string;

  constructor(init: UnexpectedResponseInit) {
    super(`${init.message} (HTTP ${init.status}${init.requestId ? `, request ${init.requestId}` : ''})`, { cause: init.cause, redactor: init.redactor });
    const clean = (text: string): string => (init.redactor ? init.redactor.redact(text) : redact(text));
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(init.headers ?? {})) {
      const lower = name.toLowerCase();
      headers[lower] = SECRET_HEADER_NAMES.has(lower) ? REDACTED : clean(value);
    }
    this.headers = Object.freeze(headers);
    const raw = init.rawBody ?? '';
    this.rawBody = clean(raw.length > MAX_RAW_BODY ? `${raw.slice(0, MAX_RAW_BODY)}…` : raw);
  }
}
