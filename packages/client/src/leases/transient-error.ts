function numberField(error: unknown, name: string): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const value = (error as Record<string, unknown>)[name];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/**
 * The default test of whether a failed heartbeat is worth retrying: anything without a 4xx
 * `status` (network errors, timeouts, aborts, 5xx), plus 408, 429 and 409
 * `idempotency_in_flight`.
 */
export function isTransientHeartbeatError(error: unknown): boolean {
  const status = numberField(error, 'status');
  if (status === undefined || status < 400 || status >= 500) return true;
  if (status === 408 || status === 429) return true;
  return status === 409 && (error as { code?: unknown }).code === 'idempotency_in_flight';
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
