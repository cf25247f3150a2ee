import { ApiError } from '../errors/api-error.js';
import { ConnectionError, TimeoutError } from '../errors/connection-errors.js';
import { isPermanent } from '../errors/permanent-connection.js';

/**
 * The one owner of "is this failure worth another attempt": the request function retries with
 * {@link isRetryableError}, the renewal scheduler keeps heartbeating through
 * {@link isTransientHeartbeatError}, and both read the server's wait with {@link retryAfterMsOf}.
 */

/** The 409 code that means "the first request with this key is still running": retry it. */
export const IDEMPOTENCY_IN_FLIGHT = 'idempotency_in_flight';

/** Whether an answer with this status (and code) may succeed when sent again: 408, 429, 5xx and 409 `idempotency_in_flight`. */
export function isRetryableStatus(status: number, code: unknown): boolean {
  if (status === 408 || status === 429 || status >= 500) return true;
  return status === 409 && code === IDEMPOTENCY_IN_FLIGHT;
}

/**
 * Whether an error is worth retrying with the same `Idempotency-Key`: connection errors (but to a
 * name that never resolves),
 * attempt timeouts, 408, 429, 5xx, and 409 `idempotency_in_flight`. Never other 4xx, 410,
 * aborts, an exhausted deadline or a lost lease.
 */
export function isRetryableError(error: unknown): boolean {
  if (error instanceof ConnectionError) return !isPermanent(error);
  if (error instanceof TimeoutError) return error.scope === 'attempt';
  return error instanceof ApiError && isRetryableStatus(error.status, error.code);
}

function numberField(error: unknown, name: string): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const value = (error as Record<string, unknown>)[name];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/**
 * Whether a failed heartbeat says nothing definitive about the leases (so renewal goes on until
 * their local deadlines): anything without a 4xx `status` (network errors, timeouts, aborts,
 * 5xx), plus the retryable 4xx answers of {@link isRetryableStatus}.
 */
export function isTransientHeartbeatError(error: unknown): boolean {
  const status = numberField(error, 'status');
  if (status === undefined || status < 400 || status >= 500) return true;
  return isRetryableStatus(status, (error as { code?: unknown }).code);
}

/** The wait the server asked for (`retryAfterMs` on the error, as the SDK's API errors carry it), in ms. */
export function retryAfterMsOf(error: unknown): number | undefined {
  const ms = numberField(error, 'retryAfterMs');
  return ms !== undefined && ms >= 0 ? ms : undefined;
}

/** The HTTP status on an error, if it has one (for logs). */
export function statusOf(error: unknown): number | undefined {
  return numberField(error, 'status');
}
