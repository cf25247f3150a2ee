import { ApiError } from '../errors/api-error.js';
import { AbortError, ConnectionError, TimeoutError } from '../errors/connection-errors.js';
import { decodeApiError } from '../errors/decode-error.js';
import { LeaseholdError } from '../errors/leasehold-error.js';
import { isDefinitive, needsIdempotencyStore, resolveIdempotencyKey, resolveIdempotencyKeyNow, type ResolvedIdempotencyKey } from '../idempotency/request-idempotency.js';
import { systemWallClock } from '../monotonic-clock.js';
import { RetryPolicy, type RetryDecision } from '../retry/retry-policy.js';
import { sendAttempt } from '../transport/send-attempt.js';
import { explainUnresolvableHost } from '../transport/unresolvable-host.js';
import type { TransportRequest, TransportResponse } from '../transport/transport.js';
import type { CallTrace } from './call-tracer.js';
import { prepareCall, transportRequestOf, type PreparedCall } from './prepare-call.js';
import { buildRequestHeaders } from './request-headers.js';
import type { AttemptEvent, LeaseholdResponse, RequestConfig, RequestOptions } from './request-options.js';
import { parseSuccessBody, requestIdOf, successOf, unexpected } from './response-body.js';

export type { AttemptEvent, HttpMethod, LeaseholdResponse, RequestConfig, RequestHooks, RequestOptions } from './request-options.js';
export { DEFAULT_TIMEOUT_MS } from './request-options.js';

/** What one attempt came to: an answer the call can use, or the error it failed with. */
type AttemptOutcome =
  | { readonly response: TransportResponse; readonly data: unknown; readonly error?: undefined; readonly durationMs: number }
  | { readonly response: TransportResponse | undefined; readonly error: LeaseholdError; readonly durationMs: number };

/**
 * Sends one API call: JSON, auth, idempotency key (same on every retry, durable with an
 * `operationId`), per-attempt timeout, deadline, abort, retries and typed, redacted errors.
 * Throws `ApiError` subclasses, `ConnectionError`, `TimeoutError`, `AbortError`, or
 * `UnexpectedResponseError` for a 2xx the call cannot use (not JSON, or refused by `accept`).
 * @example
 * const { data } = await request(config, { method: 'POST', path: '/v1/claims/heartbeat', body: { ttl: 30 } });
 */
export async function request<T = unknown>(config: RequestConfig, options: RequestOptions): Promise<LeaseholdResponse<T>> {
  const call = prepareCall(config, options);
  const idem = needsIdempotencyStore(config, options) ? await resolveIdempotencyKey(config, options, call.log) : resolveIdempotencyKeyNow(config, options, call.log);
  const headers = buildRequestHeaders({
    apiKey: config.apiKey,
    idempotencyKey: idem.key,
    hasBody: call.body !== undefined,
    userAgentSuffix: config.userAgent,
    defaultHeaders: config.defaultHeaders,
    headers: options.headers,
  });
  const trace = config.tracer?.start({ method: options.method, url: call.url, path: options.path, operation: options.operation });
  return attempts<T>(config, call, idem, transportRequestOf(call, headers), trace);
}

/** The attempt loop: send, then return the answer, give up, or wait and send again. */
async function attempts<T>(
  config: RequestConfig,
  call: PreparedCall,
  idem: ResolvedIdempotencyKey,
  transportRequest: Omit<TransportRequest, 'signal'>,
  trace: CallTrace | undefined,
): Promise<LeaseholdResponse<T>> {
  const { signal } = call.options;
  let policy = config.retryPolicy;
  let lastError: LeaseholdError | undefined;
  let lastResponse: TransportResponse | undefined;
  for (let attempt = 1; ; attempt++) {
    const remainingMs = call.deadlineAt - call.clock.now();
    if (remainingMs <= 0) throw ended(trace, lastError ?? new TimeoutError('deadline', call.budgetMs), lastResponse, attempt - 1);
    const event = config.hooks === undefined ? undefined : { method: call.options.method, path: call.options.path, attempt, idempotencyKey: idem.key };
    const outcome = await attemptOnce(config, call, transportRequest, attempt, remainingMs, event);
    if (outcome.error === undefined) {
      if (call.logging) call.log.debug(`${call.options.method} ${call.options.path} → ${outcome.response.status} in ${Math.round(outcome.durationMs)} ms`, { requestId: requestIdOf(outcome.response), attempt });
      // A definitive success keeps the stored key until its ttl (like the server's record): the
      // same operationId then replays this answer, even after a crash before the caller recorded it.
      trace?.end({ status: outcome.response.status, error: undefined, attempts: attempt, requestId: requestIdOf(outcome.response) });
      return successOf<T>(outcome.response, outcome.data, attempt, idem.key, call.redactor);
    }
    const failure = outcome.error;
    lastError = failure;
    lastResponse = outcome.response;
    if (failure instanceof AbortError || signal?.aborted) throw ended(trace, failure instanceof AbortError ? failure : new AbortError(undefined, { cause: signal?.reason }), lastResponse, attempt);
    policy ??= new RetryPolicy({ maxRetries: config.maxRetries });
    const left = call.deadlineAt - call.clock.now();
    const decision = policy.decide(failure, attempt, { maxRetries: call.maxRetries, remainingMs: Number.isFinite(left) ? left : undefined });
    if (!decision.retry) {
      if (idem.forget && isDefinitive(failure, policy)) await idem.forget();
      logGiveUp(call, failure, attempt, decision, requestIdOf(outcome.response));
      throw ended(trace, failure, lastResponse, attempt);
    }
    await waitToRetry(config, call, failure, attempt, decision.delayMs, event, trace, requestIdOf(outcome.response));
  }
}

/** One attempt, with its hooks: the usable answer, or the error (never throws). */
async function attemptOnce(
  config: RequestConfig,
  call: PreparedCall,
  transportRequest: Omit<TransportRequest, 'signal'>,
  attempt: number,
  remainingMs: number,
  event: AttemptEvent | undefined,
): Promise<AttemptOutcome> {
  const { hooks } = config;
  const { options, clock, redactor } = call;
  if (hooks !== undefined) safely(call, () => hooks.onAttemptStart?.(event as AttemptEvent));
  if (call.logging) call.log.debug(`${options.method} ${options.path} attempt ${attempt}`);
  const attemptStart = clock.now();
  let response: TransportResponse | undefined;
  let error: LeaseholdError | undefined;
  let data: unknown;
  try {
    response = await sendAttempt(config.transport, transportRequest, { timeoutMs: call.timeoutMs, remainingMs, budgetMs: call.budgetMs, signal: options.signal });
    if (response.status >= 200 && response.status < 300) {
      data = parseSuccessBody(response, redactor);
      const problem = options.accept?.({ status: response.status, data, headers: response.headers });
      if (problem !== undefined) throw unexpected(response, redactor, 'unexpected_response_shape', problem);
    } else error = decodeApiError(response, { redactor, nowMs: (config.wallClock ?? systemWallClock).now() });
  } catch (caught) {
    error = caught instanceof LeaseholdError ? caught : new ConnectionError(String(caught), { cause: caught, redactor });
    if (error instanceof ConnectionError) error = explainUnresolvableHost(error, transportRequest.url, { redactor });
  }
  const durationMs = clock.now() - attemptStart;
  if (hooks !== undefined) safely(call, () => hooks.onAttemptEnd?.({ ...(event as AttemptEvent), durationMs, status: response?.status, error, requestId: requestIdOf(response) }));
  if (error === undefined && response !== undefined) return { response, data, durationMs };
  return { response, error: error ?? new ConnectionError('No response.', { redactor }), durationMs };
}

/** Reports the retry (hooks, log, trace), then waits its delay; an abort meanwhile rejects with `AbortError`. */
async function waitToRetry(
  config: RequestConfig,
  call: PreparedCall,
  failure: LeaseholdError,
  attempt: number,
  delayMs: number,
  event: AttemptEvent | undefined,
  trace: CallTrace | undefined,
  requestId: string | undefined,
): Promise<void> {
  const { hooks } = config;
  const { method, path, signal } = call.options;
  if (hooks !== undefined) safely(call, () => hooks.onRetryScheduled?.({ ...(event as AttemptEvent), delayMs, error: failure }));
  trace?.retry(attempt, delayMs, failure);
  call.log.info(`Retrying ${method} ${path} in ${delayMs} ms after ${describe(failure)} (attempt ${attempt + 1} of ${call.maxRetries + 1}).`, { requestId });
  try {
    await call.pause(delayMs, signal);
  } catch (caught) {
    throw ended(trace, caught instanceof AbortError ? caught : new AbortError(undefined, { cause: signal?.reason ?? caught }), undefined, attempt);
  }
  if (signal?.aborted) throw ended(trace, new AbortError(undefined, { cause: signal.reason }), undefined, attempt);
}

/**
 * Logs a call that will not be sent again. A refusal (a 4xx such as 409 `claim_held`) is an
 * answer for the caller to judge, not a failure of the client: debug. Giving up on a failure
 * that retrying could have fixed (retries exhausted, the deadline reached) is a warning.
 */
function logGiveUp(call: PreparedCall, failure: LeaseholdError, attempt: number, decision: Exclude<RetryDecision, { retry: true }>, requestId: string | undefined): void {
  const { method, path } = call.options;
  if (decision.reason !== 'not_retryable') {
    call.log.warn(`Gave up on ${method} ${path} after ${attempt} attempt${attempt === 1 ? '' : 's'} (${decision.reason === 'deadline' ? 'its deadline left no time for another' : 'retries exhausted'}): ${describe(failure)}.`, { requestId, attempts: attempt });
  } else if (call.logging) {
    call.log.debug(`${method} ${path} answered ${describe(failure)} (not retried).`, { attempt, requestId });
  }
}

/** Ends the trace with `error` and returns it, for `throw ended(...)`. */
function ended(trace: CallTrace | undefined, error: LeaseholdError, response: TransportResponse | undefined, attempts: number): LeaseholdError {
  trace?.end({ status: response?.status, error, attempts, requestId: requestIdOf(response) });
  return error;
}

function safely(call: PreparedCall, hook: () => void): void {
  try {
    hook();
  } catch (error) {
    call.log.warn('A request hook threw; ignored.', { error });
  }
}

function describe(error: LeaseholdError): string {
  return error instanceof ApiError ? `${error.status}${error.code ? ` ${error.code}` : ''}` : `${error.name}: ${error.message}`;
}
