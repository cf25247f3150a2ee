import { AbortError, ConnectionError, TimeoutError, type TimeoutScope } from '../errors/connection-errors.js';
import { LeaseholdError } from '../errors/leasehold-error.js';
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
 * Internal: the key of a transport's own attempt sender. A transport that has one enforces an
 * attempt's limits itself (its time limit and the caller's signal), with the same outcomes as
 * {@link sendAttempt}'s generic path, but without an `AbortController`, a timer and a
 * `Promise.race` per call.
 */
export const sendDirect: unique symbol = Symbol('leasehold.sendDirect');

/** Internal: a transport with its own attempt sender (see {@link sendDirect}). */
export interface DirectTransport extends Transport {
  /**
   * Sends one attempt under `limits` (the signal is not aborted yet). Rejects with `AbortError`
   * when the caller aborted, `TimeoutError` when the limit fired, else a `LeaseholdError`
   * (`ConnectionError` for network failures); never throws synchronously.
   */
  [sendDirect](request: Omit<TransportRequest, 'signal'>, limits: AttemptLimits): Promise<TransportResponse>;
}

/** The time limit of one attempt: the sooner of its own timeout and the overall deadline. */
export interface AttemptLimit {
  /** How long the attempt may take, in ms; not finite: no limit. */
  limitMs: number;
  /** Which limit it is. */
  scope: TimeoutScope;
  /** The limit a {@link TimeoutError} reports (the attempt's timeout, or the overall budget). */
  reportedMs: number;
}

/** The sooner of an attempt's own timeout and the overall deadline. */
export function attemptLimit(limits: AttemptLimits): AttemptLimit {
  const scope: TimeoutScope = limits.remainingMs < limits.timeoutMs ? 'deadline' : 'attempt';
  return {
    limitMs: Math.max(0, Math.min(limits.timeoutMs, limits.remainingMs)),
    scope,
    reportedMs: scope === 'attempt' ? limits.timeoutMs : limits.budgetMs,
  };
}

/**
 * Sends one attempt under its timeout and the caller's signal. Rejects with `AbortError` when the
 * caller aborted, `TimeoutError` when a limit fired (even if the transport ignores its signal),
 * else the transport's `ConnectionError` (anything else a transport throws becomes one).
 */
export function sendAttempt(
  transport: Transport,
  request: Omit<TransportRequest, 'signal'>,
  limits: AttemptLimits,
): Promise<TransportResponse> {
  const { signal } = limits;
  if (signal?.aborted) return Promise.reject(new AbortError(undefined, { cause: signal.reason }));
  const direct = (transport as Partial<DirectTransport>)[sendDirect];
  if (typeof direct === 'function') return direct.call(transport, request, limits);
  return sendThrough(transport, request, limits);
}

/** The generic path: any transport, limits enforced through an `AbortSignal` it is given. */
export async function sendThrough(
  transport: Transport,
  request: Omit<TransportRequest, 'signal'>,
  limits: AttemptLimits,
): Promise<TransportResponse> {
  const { signal } = limits;
  const controller = new AbortController();
  const { limitMs, scope, reportedMs } = attemptLimit(limits);
  let fired: LeaseholdError | undefined;
  const stop = (error: LeaseholdError): void => {
    fired ??= error;
    controller.abort(fired);
  };
  const timer = Number.isFinite(limitMs)
    ? setTimeout(() => stop(new TimeoutError(scope, reportedMs)), Math.min(limitMs, 2_147_483_647))
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
