import type { ErrorFields } from '@leasehold/protocol';
import { EngineError } from '../engine/index.js';
import { ClockNotManualError, StoreUnavailableError } from '../store/errors.js';
import { JSON_HEADERS, type StoredAnswer } from './answer.js';
import { InvalidFaultRuleError } from './faults.js';
import { HttpError } from './http-error.js';

/** True for the errors that are answers (HTTP refusals and the engine's domain errors), not bugs. */
export function isAnswerError(error: unknown): error is HttpError | EngineError | InvalidFaultRuleError {
  return error instanceof HttpError || error instanceof EngineError || error instanceof InvalidFaultRuleError;
}

/**
 * The edge where every error becomes an answer: HTTP refusals, the engine's domain errors, a
 * store outage (503 `service_unavailable` with `Retry-After`: nothing was committed), a manual-clock
 * lever on a real clock (409 `clock_not_manual`); anything else is a bug, reported to
 * `onInternalError` and answered 500. The envelope itself is built when the request id is known.
 */
export function errorAnswerOf(error: unknown, onInternalError?: (error: unknown) => void): StoredAnswer {
  let fields: ErrorFields;
  let headers: Record<string, string> = JSON_HEADERS;
  if (error instanceof HttpError) {
    fields = error.fields();
    if (Object.keys(error.headers).length > 0) headers = { ...JSON_HEADERS, ...error.headers };
  } else if (error instanceof EngineError) {
    fields = { status: error.status, code: error.code, message: error.message, param: error.param };
  } else if (error instanceof InvalidFaultRuleError) {
    fields = { status: 400, code: 'invalid_request', message: error.message, param: error.param };
  } else if (error instanceof StoreUnavailableError) {
    // The store's own words (which outage: unreachable, or read-only after a failover); the driver's stay in `cause`.
    fields = { status: 503, code: 'service_unavailable', message: error.message };
    headers = { ...JSON_HEADERS, 'Retry-After': String(error.retryAfterSeconds) };
  } else if (error instanceof ClockNotManualError) {
    fields = { status: 409, code: 'clock_not_manual', message: error.message };
  } else {
    onInternalError?.(error);
    fields = { status: 500, code: 'internal_error', message: 'The server could not complete the request.' };
  }
  return { status: fields.status, headers, body: undefined, error: fields };
}
