import { ApiError } from './api-error.js';
import { buildUrl } from './build-url.js';
import { AbortError, ConnectionError, TimeoutError } from './connection-errors.js';
import { decodeApiError } from './decode-error.js';
import { LeaseholdError } from './leasehold-error.js';
import { redactingLogger, silentLogger } from './logger.js';
import { systemMonotonicClock, systemWallClock } from './monotonic-clock.js';
import { Redactor, SECRET_HEADER_NAMES } from './redact.js';
import { assertSendable, check, checkNumber, isCount, isPositiveOrInfinite } from './argument-checks.js';
import { InvalidArgumentError } from './invalid-argument-error.js';
import { buildRequestHeaders } from './request-headers.js';
import { isDefinitive, needsIdempotencyStore, resolveIdempotencyKey, resolveIdempotencyKeyNow } from './request-idempotency.js';
import { DEFAULT_TIMEOUT_MS, type AttemptEvent, type LeaseholdResponse, type RequestConfig, type RequestOptions } from './request-options.js';
import { DEFAULT_MAX_RETRIES, RetryPolicy } from './retry-policy.js';
import { sendAttempt } from './send-attempt.js';
import { sleep as realSleep } from './sleep.js';
import { UnexpectedResponseError, type UnexpectedResponseReason } from './unexpected-response-error.js';
import type { TransportResponse } from './transport.js';

export type { AttemptEvent, HttpMethod, LeaseholdResponse, RequestConfig, RequestHooks, RequestOptions } from './request-options.js';
export { DEFAULT_TIMEOUT_MS } from './request-options.js';

/**
 * Sends one API call: JSON, auth, idempotency key (same on every retry, durable with an
 * `operationId`), per-attempt timeout, deadline, abort, retries and typed, redacted errors.
 * Throws `ApiError` subclasses, `ConnectionError`, `TimeoutError`, `AbortError`, or
 * `UnexpectedResponseError` for a 2xx the call cannot use (not JSON, or refused by `accept`).
 * @example
 * const { data } = await request<Claim>(config, { method: 'POST', path: '/v1/spaces/…/claims', body });
 */
export async function request<T = unknown>(config: RequestConfig, options: RequestOptions): Promise<LeaseholdResponse<T>> {
  const clock = config.clock ?? systemMonotonicClock;
  const startedAt = clock.now();
  // The default policy is only needed once an attempt fails: built then, not on every call.
  let policy = config.retryPolicy;
  const maxRetries = options.maxRetries ?? config.maxRetries ?? policy?.maxRetries ?? DEFAULT_MAX_RETRIES;
  const timeoutMs = options.timeoutMs ?? config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const redactor = config.redactor ?? new Redactor();
  redactor.add(config.apiKey);
  learnRequestSecrets(redactor, options);
  const log = redactingLogger(config.logger, redactor);
  const logging = log !== silentLogger;
  const hooks = config.hooks;
  const pause = config.sleep ?? realSleep;
  checkCallOptions(options);
  const { method, path, signal } = options;
  const budgetMs = Math.min(
    options.totalTimeoutMs ?? Number.POSITIVE_INFINITY,
    options.deadlineAt === undefined ? Number.POSITIVE_INFINITY : options.deadlineAt - startedAt,
  );
  const deadlineAt = startedAt + budgetMs;
  if (signal?.aborted) throw new AbortError(undefined, { cause: signal.reason });

  const url = buildUrl(config.baseUrl, path, options.query);
  const body = encodeBody(options.body);
  const idem = needsIdempotencyStore(config, options) ? await resolveIdempotencyKey(config, options, log) : resolveIdempotencyKeyNow(config, options, log);
  const headers = buildRequestHeaders({
    apiKey: config.apiKey,
    idempotencyKey: idem.key,
    hasBody: body !== undefined,
    userAgentSuffix: config.userAgent,
    defaultHeaders: config.defaultHeaders,
    headers: options.headers,
  });
  const transportRequest = { method, url, headers, body };
  const call = (hook: () => void): void => {
    try {
      hook();
    } catch (error) {
      log.warn('A request hook threw; ignored.', { error });
    }
  };

  let lastError: LeaseholdError | undefined;
  for (let attempt = 1; ; attempt++) {
    const remainingMs = deadlineAt - clock.now();
    if (remainingMs <= 0) throw lastError ?? new TimeoutError('deadline', budgetMs);
    // Hook events are only built for hooks.
    const event: AttemptEvent | undefined = hooks === undefined ? undefined : { method, path, attempt, idempotencyKey: idem.key };
    if (hooks !== undefined) call(() => hooks.onAttemptStart?.(event as AttemptEvent));
    if (logging) log.debug(`${method} ${path} attempt ${attempt}`);
    const attemptStart = clock.now();
    let response: TransportResponse | undefined;
    let error: LeaseholdError | undefined;
    let data: unknown;
    try {
      response = await sendAttempt(config.transport, transportRequest, { timeoutMs, remainingMs, budgetMs, signal });
      if (response.status >= 200 && response.status < 300) {
        data = parseSuccessBody(response, redactor);
        const problem = options.accept?.({ status: response.status, data, headers: response.headers });
        if (problem !== undefined) throw unexpected(response, redactor, 'unexpected_response_shape', problem);
      } else error = decodeApiError(response, { redactor, nowMs: (config.wallClock ?? systemWallClock).now() });
    } catch (caught) {
      error = caught instanceof LeaseholdError ? caught : new ConnectionError(String(caught), { cause: caught, redactor });
    }
    const durationMs = clock.now() - attemptStart;
    const requestId = response ? (response.headers['request-id'] ?? response.headers['x-request-id']) : undefined;
    if (hooks !== undefined) call(() => hooks.onAttemptEnd?.({ ...(event as AttemptEvent), durationMs, status: response?.status, error, requestId }));

    if (error === undefined && response !== undefined) {
      redactor.add(response.headers['spooler-lease']);
      const token = (data as { token?: unknown } | undefined)?.token;
      if (typeof token === 'string') redactor.add(token);
      if (logging) log.debug(`${method} ${path} → ${response.status} in ${Math.round(durationMs)} ms`, { requestId, attempt });
      // A definitive success keeps the stored key until its ttl (like the server's record): the
      // same operationId then replays this answer, even after a crash before the caller recorded it.
      return {
        status: response.status,
        headers: response.headers,
        data: data as T,
        requestId,
        replayed: response.headers['idempotent-replayed']?.toLowerCase() === 'true',
        attempts: attempt,
        idempotencyKey: idem.key,
      };
    }
    const failure: LeaseholdError = error ?? new ConnectionError('No response.', { redactor });
    lastError = failure;
    if (failure instanceof AbortError || signal?.aborted) throw failure instanceof AbortError ? failure : new AbortError(undefined, { cause: signal?.reason });

    policy ??= new RetryPolicy({ maxRetries: config.maxRetries });
    const left = deadlineAt - clock.now();
    const decision = policy.decide(failure, attempt, { maxRetries, remainingMs: Number.isFinite(left) ? left : undefined });
    if (!decision.retry) {
      if (idem.forget && isDefinitive(failure, policy)) await idem.forget();
      log.debug(`${method} ${path} failed: ${failure.name}: ${failure.message}`, { attempt, requestId, reason: decision.reason });
      throw failure;
    }
    if (hooks !== undefined) call(() => hooks.onRetryScheduled?.({ ...(event as AttemptEvent), delayMs: decision.delayMs, error: failure }));
    log.info(`Retrying ${method} ${path} in ${decision.delayMs} ms after ${describe(failure)} (attempt ${attempt + 1} of ${maxRetries + 1}).`, { requestId });
    try {
      await pause(decision.delayMs, signal);
    } catch (caught) {
      throw caught instanceof AbortError ? caught : new AbortError(undefined, { cause: signal?.reason ?? caught });
    }
    if (signal?.aborted) throw new AbortError(undefined, { cause: signal.reason });
  }
}

/** A 2xx body: parsed JSON, or undefined when empty; garbage is an `UnexpectedResponseError` (`invalid_response_body`). */
function parseSuccessBody(response: TransportResponse, redactor: Redactor): unknown {
  if (response.status === 204 || response.status === 205 || response.bodyText.trim() === '') return undefined;
  try {
    return JSON.parse(response.bodyText) as unknown;
  } catch (cause) {
    throw unexpected(response, redactor, 'invalid_response_body', `The ${response.status} answer is not valid JSON.`, cause);
  }
}

function unexpected(response: TransportResponse, redactor: Redactor, code: UnexpectedResponseReason, message: string, cause?: unknown): UnexpectedResponseError {
  return new UnexpectedResponseError({
    status: response.status,
    code,
    message,
    headers: response.headers,
    rawBody: response.bodyText,
    requestId: response.headers['request-id'] ?? response.headers['x-request-id'],
    redactor,
    cause,
  });
}

function encodeBody(body: unknown): string | undefined {
  if (body === undefined) return undefined;
  try {
    return JSON.stringify(body);
  } catch (cause) {
    throw new InvalidArgumentError('body', `The request body cannot be encoded as JSON: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/** Refuses per-call options the request cannot honour (before anything is stored or sent). */
function checkCallOptions(options: RequestOptions): void {
  checkNumber(options.maxRetries, 'maxRetries', 'a non-negative integer', isCount, 'request');
  checkNumber(options.timeoutMs, 'timeoutMs', 'a positive number of milliseconds (Infinity: none)', isPositiveOrInfinite, 'request');
  checkNumber(options.totalTimeoutMs, 'totalTimeoutMs', 'a positive number of milliseconds (Infinity: none)', isPositiveOrInfinite, 'request');
  if (options.operationId !== undefined) check(typeof options.operationId === 'string' && options.operationId !== '', 'operationId', 'a non-empty string', options.operationId, 'request');
  const signal = options.signal as unknown;
  if (signal !== undefined) {
    check(typeof signal === 'object' && signal !== null && typeof (signal as AbortSignal).addEventListener === 'function', 'signal', 'an AbortSignal', signal, 'request');
  }
  if (options.headers) {
    for (const [name, value] of Object.entries(options.headers)) {
      if (value !== undefined) assertSendable(value, `header ${name}`, 'header', { secret: SECRET_HEADER_NAMES.has(name.toLowerCase()) });
    }
  }
}

function learnRequestSecrets(redactor: Redactor, options: RequestOptions): void {
  if (options.headers) {
    for (const [name, value] of Object.entries(options.headers)) {
      const lower = name.toLowerCase();
      if (lower === 'spooler-lease' || lower === 'x-task-claim') redactor.add(value);
    }
  }
  const token = (options.body as { token?: unknown } | null | undefined)?.token;
  if (typeof token === 'string') redactor.add(token);
}

function describe(error: LeaseholdError): string {
  return error instanceof ApiError ? `${error.status}${error.code ? ` ${error.code}` : ''}` : error.name;
}
