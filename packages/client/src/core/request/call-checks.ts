import { assertSendable, check, checkNumber, isCount, isPositiveOrInfinite } from '../../internal/argument-checks.js';
import { InvalidArgumentError } from '../errors/invalid-argument-error.js';
import { SECRET_HEADER_NAMES, type Redactor } from '../redact.js';
import type { RequestOptions } from './request-options.js';

/** Refuses per-call options the request cannot honour (before anything is stored or sent). */
export function checkCallOptions(options: RequestOptions): void {
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

/** Registers the secrets a call sends (lease headers, a body `token`) with the client's redactor. */
export function learnRequestSecrets(redactor: Redactor, options: RequestOptions): void {
  if (options.headers) {
    for (const [name, value] of Object.entries(options.headers)) {
      const lower = name.toLowerCase();
      if (lower === 'spooler-lease' || lower === 'x-task-claim') redactor.add(value);
    }
  }
  const token = (options.body as { token?: unknown } | null | undefined)?.token;
  if (typeof token === 'string') redactor.add(token);
}

/** The request body as JSON text; a value JSON cannot encode is an `InvalidArgumentError`. */
export function encodeBody(body: unknown): string | undefined {
  if (body === undefined) return undefined;
  try {
    return JSON.stringify(body);
  } catch (cause) {
    throw new InvalidArgumentError('body', `The request body cannot be encoded as JSON: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}
