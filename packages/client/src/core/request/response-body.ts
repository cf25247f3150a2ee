import { UnexpectedResponseError, type UnexpectedResponseReason } from '../errors/unexpected-response-error.js';
import type { Redactor } from '../redact.js';
import type { TransportResponse } from '../transport/transport.js';
import type { LeaseholdResponse } from './request-options.js';

/** The `Request-Id` of an answer (or the older `X-Request-Id`). */
export function requestIdOf(response: TransportResponse | undefined): string | undefined {
  return response ? (response.headers['request-id'] ?? response.headers['x-request-id']) : undefined;
}

/** A 2xx body: parsed JSON, or undefined when empty; garbage is an `UnexpectedResponseError` (`invalid_response_body`). */
export function parseSuccessBody(response: TransportResponse, redactor: Redactor): unknown {
  if (response.status === 204 || response.status === 205 || response.bodyText.trim() === '') return undefined;
  try {
    return JSON.parse(response.bodyText) as unknown;
  } catch (cause) {
    throw unexpected(response, redactor, 'invalid_response_body', `The ${response.status} answer is not valid JSON.`, cause);
  }
}

/** The error of a 2xx answer the call cannot use. */
export function unexpected(response: TransportResponse, redactor: Redactor, code: UnexpectedResponseReason, message: string, cause?: unknown): UnexpectedResponseError {
  return new UnexpectedResponseError({
    status: response.status,
    code,
    message,
    headers: response.headers,
    rawBody: response.bodyText,
    requestId: requestIdOf(response),
    redactor,
    cause,
  });
}

/**
 * The successful answer handed to the caller; the lease secrets it carries (`Spooler-Lease`, a
 * body `token`) are learned by the redactor first.
 */
export function successOf<T>(response: TransportResponse, data: unknown, attempts: number, idempotencyKey: string | undefined, redactor: Redactor): LeaseholdResponse<T> {
  redactor.add(response.headers['spooler-lease']);
  const token = (data as { token?: unknown } | undefined)?.token;
  if (typeof token === 'string') redactor.add(token);
  return {
    status: response.status,
    headers: response.headers,
    data: data as T,
    requestId: requestIdOf(response),
    replayed: response.headers['idempotent-replayed']?.toLowerCase() === 'true',
    attempts,
    idempotencyKey,
  };
}
