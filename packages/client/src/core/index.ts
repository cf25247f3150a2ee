/** The request core: transport, request, retry, errors, redaction and idempotency (Stainless-style `core`). */
export * from './errors.js';
export { decodeApiError, decodeErrorBody, type DecodedError, type DecodeErrorOptions, type ErrorResponse } from './decode-error.js';
export { redact, Redactor, REDACTED, SECRET_HEADER_NAMES, type RedactorOptions } from './redact.js';
export { redactingLogger, silentLogger, type Logger, type LogLevel } from './logger.js';
export { isRetryableError, IDEMPOTENCY_IN_FLIGHT, RetryPolicy, type RetryDecision, type RetryPolicyOptions } from './retry-policy.js';
export { parseRetryAfter } from './retry-after.js';
export { ManualClock, systemMonotonicClock, systemWallClock, type MonotonicClock, type WallClock } from './monotonic-clock.js';
export { sleep, type Sleep } from './sleep.js';
export { normalizeHeaders, type Transport, type TransportRequest, type TransportResponse } from './transport.js';
export { UndiciTransport, type UndiciTransportOptions } from './undici-transport.js';
export { FetchTransport, type FetchLike, type FetchTransportOptions } from './fetch-transport.js';
export { buildUrl, encodePath, type QueryValue } from './build-url.js';
export { buildRequestHeaders, CLIENT_HEADER_VALUE, userAgent, type RequestHeaderInput } from './request-headers.js';
export {
  DEFAULT_TIMEOUT_MS,
  request,
  type AttemptEvent,
  type HttpMethod,
  type LeaseholdResponse,
  type RequestConfig,
  type RequestHooks,
  type RequestOptions,
} from './request.js';
export { assertValidIdempotencyKey, generateIdempotencyKey, isValidIdempotencyKey } from './idempotency-key.js';
export { IDEMPOTENCY_KEY_TTL_MS, reserveIdempotencyKey, type IdempotencyStore } from './idempotency-store.js';
export { MemoryIdempotencyStore, type MemoryIdempotencyStoreOptions } from './memory-idempotency-store.js';
export { FileIdempotencyStore, type FileIdempotencyStoreOptions } from './file-idempotency-store.js';
export { VERSION } from './version.js';
