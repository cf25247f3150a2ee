import { AbortError, ConnectionError, TimeoutError, type TimeoutScope } from './connection-errors.js';
import { LeaseholdError } from './leasehold-error.js';
import type { Transport, TransportRequest, TransportResponse } from './transport.js';

/** Limits of one attempt. */
export interface AttemptLimits {
  /** This attempt's own timeout (`timeoutMs`); non-finite means none. */
  timeoutMs: number;
  /** Time left before the overall deadline; non-finite means none. */
  remainingMs: number;
  /** The overall budget, reported in a deadline {@link TimeoutError}. */
  budgetMs: number;
  /** The caller's signal. */
  signal?: AbortSignal | undefined;
}

/**
 * Sends one attempt under its timeout and the caller's signal. Rejects with `AbortError` when the
 * caller aborted, `TimeoutError` when a limit fired (even if the transport ignores its signal),
 * else the transport's `ConnectionError` (anything else a transport throws becomes one).
 */
export async function sendAttempt(
  transport: Transport,
  request: Omit<TransportRequest, 'signal'>,
  limits: AttemptLimits,
): Promise<TransportResponse> {
  const { signal } = limits;
  if (signal?.aborted) throw new AbortError(undefined, { cause: signal.reason });
  const controller = new AbortController();
  const scope: TimeoutScope = limits.remainingMs < limits.timeoutMs ? 'deadline' : 'attempt';
  const limitMs = Math.max(0, Math.min(limits.timeoutMs, limits.remainingMs));
  let fired: LeaseholdError | undefined;
  const stop = (error: LeaseholdError): void => {
    fired ??= error;
    controller.abort(fired);
  };
  const timer = Number.isFinite(limitMs)
    ? setTimeout(() => stop(new TimeoutError(scope, scope === 'attempt' ? limits.timeoutMs : limits.budgetMs)), Math.min(limitMs, 2_147_483_647))
    : undefined;
  const onAbort = (): void => stop(new AbortError(undefined, { cause: signal?.reason }));
  signal?.addEventListener('abort', onAbort, { once: true });
  const aborted = new Promise<never>((_, reject) => {
    controller.signal.addEventListener('abort', () => reject(fired), { once: true });
  });
  aborted.catch(() => {});
  try {
    const sending = transport.send({ ...request, signal: controller.signal });
    sending.catch(() => {});
    return await Promise.race([sending, aborted]);
  } catch (error) {
    if (fired) throw fired;
    if (error instanceof LeaseholdError) throw error;
    throw new ConnectionError(`Connection error: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}
