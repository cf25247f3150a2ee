import type { ErrorType as ProtocolErrorType } from '@leasehold/protocol';
import { LeaseholdError } from './leasehold-error.js';
import { redact, REDACTED, SECRET_HEADER_NAMES, type Redactor } from '../redact.js';

/** The broad class of an error, as the envelope's `type` names it (the spec's values; open to future ones). */
export type ErrorType = ProtocolErrorType | (string & {});

/** One problem listed in an envelope's `errors`. */
export interface ApiErrorDetail {
  code?: string | undefined;
  message: string;
  param?: string | undefined;
}

/** Everything an {@link ApiError} is built from; `decodeApiError` produces it from a response. */
export interface ApiErrorInit {
  status: number;
  type: ErrorType;
  code?: string | undefined;
  param?: string | undefined;
  message: string;
  docUrl?: string | undefined;
  requestId?: string | undefined;
  errors?: readonly ApiErrorDetail[] | undefined;
  /** Response headers, lowercase names. Secret headers are masked on the error. */
  headers?: Readonly<Record<string, string>> | undefined;
  /** The wait the server asked for (`Retry-After`/`retry-after-ms`), in ms, uncapped. */
  retryAfterMs?: number | undefined;
  /** The response body as received; stored redacted and cut to 16 KiB. */
  rawBody?: string | undefined;
  redactor?: Redactor | undefined;
  cause?: unknown;
}

/** Longest `rawBody` kept on an error. */
const MAX_RAW_BODY = 16 * 1024;

/**
 * The server answered with an error status. Switch on `code` (machine-readable), not `message`.
 * Build one with {@link ApiError.from}, which picks the subclass for the status.
 * @example
 * try { await lh.tasks.claim(42, { etag }); } catch (e) { if (e instanceof ConflictError && e.code === 'task_claimed') console.log('someone else has it'); }
 */
export class ApiError extends LeaseholdError {
  override name: string = 'ApiError';
  /** HTTP status code. */
  readonly status: number;
  /** The envelope's error type (`conflict_error`, ...), or one derived from the status. */
  readonly type: ErrorType;
  /** Machine-readable reason (`claim_held`, `stale_token`, ...), when the server gave one. */
  readonly code: string | undefined;
  /** The request field the error is about. */
  readonly param: string | undefined;
  /** A page explaining the code. */
  readonly docUrl: string | undefined;
  /** The request id from the body, else the `Request-Id` / `X-Request-Id` header. */
  readonly requestId: string | undefined;
  /** Every problem found (empty when the server listed none). */
  readonly errors: readonly ApiErrorDetail[];
  /** Response headers, lowercase names, secret headers masked. */
  readonly headers: Readonly<Record<string, string>>;
  /** The wait the server asked for, in ms (uncapped), when it sent one. */
  readonly retryAfterMs: number | undefined;
  /** The response body, redacted, at most 16 KiB. */
  readonly rawBody: string;

  constructor(init: ApiErrorInit) {
    super(init.message, { cause: init.cause, redactor: init.redactor });
    const clean = (text: string): string => (init.redactor ? init.redactor.redact(text) : redact(text));
    this.status = init.status;
    this.type = init.type;
    this.code = init.code;
    this.param = init.param;
    this.docUrl = init.docUrl;
    this.requestId = init.requestId;
    this.errors = Object.freeze(
      (init.errors ?? []).map((detail) => ({ ...detail, message: clean(detail.message) })),
    );
    this.headers = Object.freeze(maskHeaders(init.headers ?? {}, clean));
    this.retryAfterMs = init.retryAfterMs;
    const raw = init.rawBody ?? '';
    this.rawBody = clean(raw.length > MAX_RAW_BODY ? `${raw.slice(0, MAX_RAW_BODY)}…` : raw);
  }

  /** Builds the subclass matching `init.status` (4xx without one of its own: plain ApiError). */
  static from(init: ApiErrorInit): ApiError {
    const Subclass = init.status >= 500 ? (STATUS_CLASSES.get(init.status) ?? InternalServerError) : STATUS_CLASSES.get(init.status);
    return Subclass ? new Subclass(init) : new ApiError(init);
  }
}

function maskHeaders(headers: Readonly<Record<string, string>>, clean: (text: string) => string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    out[lower] = SECRET_HEADER_NAMES.has(lower) ? REDACTED : clean(value);
  }
  return out;
}

/** 400: malformed JSON, a missing or invalid field, header or parameter. */
export class BadRequestError extends ApiError {
  override name = 'BadRequestError';
}
/** 401: the API key is missing, malformed, unknown or expired. */
export class AuthenticationError extends ApiError {
  override name = 'AuthenticationError';
}
/** 402: the account is suspended. */
export class PaymentRequiredError extends ApiError {
  override name = 'PaymentRequiredError';
}
/** 403: the key lacks a permission (`permission_denied`), a plan limit refuses, or (no code) the key is blocked. */
export class PermissionDeniedError extends ApiError {
  override name = 'PermissionDeniedError';
}
/** 404: the resource does not exist in the credential's scope. */
export class NotFoundError extends ApiError {
  override name = 'NotFoundError';
}
/** 409: claim, version or idempotency state refuses the request; only `idempotency_in_flight` is retried. */
export class ConflictError extends ApiError {
  override name = 'ConflictError';
}
/** 410: the lease no longer settles anything (`stale_token`): stop the guarded work. */
export class GoneError extends ApiError {
  override name = 'GoneError';
}
/** 412: `If-Match` is not the current ETag: re-read and decide again. */
export class PreconditionFailedError extends ApiError {
  override name = 'PreconditionFailedError';
}
/** 413: the request body exceeds 1 MiB. */
export class PayloadTooLargeError extends ApiError {
  override name = 'PayloadTooLargeError';
}
/** 415: the request body is not `application/json`. */
export class UnsupportedMediaTypeError extends ApiError {
  override name = 'UnsupportedMediaTypeError';
}
/** 422: well-formed, but the resource cannot do it (`invalid_transition`). */
export class UnprocessableEntityError extends ApiError {
  override name = 'UnprocessableEntityError';
}
/** 428: the write needs `If-Match` and none was sent. */
export class PreconditionRequiredError extends ApiError {
  override name = 'PreconditionRequiredError';
}
/** 429: the credential's rate limit is exceeded; `retryAfterMs` says how long to wait. */
export class RateLimitError extends ApiError {
  override name = 'RateLimitError';
}
/** 5xx: the server failed (safe to retry with the same `Idempotency-Key`). */
export class InternalServerError extends ApiError {
  override name = 'InternalServerError';
}
/** 503: a required service is momentarily unavailable (an {@link InternalServerError}). */
export class ServiceUnavailableError extends InternalServerError {
  override name = 'ServiceUnavailableError';
}

const STATUS_CLASSES: ReadonlyMap<number, new (init: ApiErrorInit) => ApiError> = new Map<
  number,
  new (init: ApiErrorInit) => ApiError
>([
  [400, BadRequestError],
  [401, AuthenticationError],
  [402, PaymentRequiredError],
  [403, PermissionDeniedError],
  [404, NotFoundError],
  [409, ConflictError],
  [410, GoneError],
  [412, PreconditionFailedError],
  [413, PayloadTooLargeError],
  [415, UnsupportedMediaTypeError],
  [422, UnprocessableEntityError],
  [428, PreconditionRequiredError],
  [429, RateLimitError],
  [503, ServiceUnavailableError],
]);
