import { AbortError } from '../errors/connection-errors.js';
import { redactingLogger, silentLogger, type Logger } from '../logger.js';
import { systemMonotonicClock, type MonotonicClock } from '../monotonic-clock.js';
import { Redactor } from '../redact.js';
import { DEFAULT_MAX_RETRIES } from '../retry/retry-policy.js';
import { sleep as realSleep, type Sleep } from '../retry/sleep.js';
import type { TransportRequest } from '../transport/transport.js';
import { buildUrl } from './build-url.js';
import { checkCallOptions, encodeBody, learnRequestSecrets } from './call-checks.js';
import { DEFAULT_TIMEOUT_MS, type RequestConfig, type RequestOptions } from './request-options.js';

/** Everything one call settles before its first attempt: limits, URL, body, logging. */
export interface PreparedCall {
  readonly options: RequestOptions;
  readonly clock: MonotonicClock;
  readonly redactor: Redactor;
  readonly log: Logger;
  /** Whether a logger listens (debug lines are only built then). */
  readonly logging: boolean;
  readonly pause: Sleep;
  readonly maxRetries: number;
  readonly timeoutMs: number;
  /** The budget of all attempts and waits, in ms (`Infinity`: none). */
  readonly budgetMs: number;
  /** When that budget runs out, on `clock`. */
  readonly deadlineAt: number;
  readonly url: string;
  readonly body: string | undefined;
}

/**
 * Checks the call's options and resolves what every attempt shares. Throws an
 * `InvalidArgumentError` for options it cannot honour, an `AbortError` when `signal` is
 * already aborted: before anything is stored or sent.
 */
export function prepareCall(config: RequestConfig, options: RequestOptions): PreparedCall {
  const clock = config.clock ?? systemMonotonicClock;
  const startedAt = clock.now();
  const redactor = config.redactor ?? new Redactor();
  redactor.add(config.apiKey);
  learnRequestSecrets(redactor, options);
  const log = redactingLogger(config.logger, redactor);
  checkCallOptions(options);
  const budgetMs = Math.min(
    options.totalTimeoutMs ?? Number.POSITIVE_INFINITY,
    options.deadlineAt === undefined ? Number.POSITIVE_INFINITY : options.deadlineAt - startedAt,
  );
  const { signal } = options;
  if (signal?.aborted) throw new AbortError(undefined, { cause: signal.reason });
  return {
    options,
    clock,
    redactor,
    log,
    logging: log !== silentLogger,
    pause: config.sleep ?? realSleep,
    maxRetries: options.maxRetries ?? config.maxRetries ?? config.retryPolicy?.maxRetries ?? DEFAULT_MAX_RETRIES,
    timeoutMs: options.timeoutMs ?? config.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    budgetMs,
    deadlineAt: startedAt + budgetMs,
    url: buildUrl(config.baseUrl, options.path, options.query),
    body: encodeBody(options.body),
  };
}

/** The transport request of every attempt of `call`. */
export function transportRequestOf(call: PreparedCall, headers: Record<string, string>): Omit<TransportRequest, 'signal'> {
  return { method: call.options.method, url: call.url, headers, body: call.body };
}
