import type { ErrorFields } from '@leasehold/protocol';

/**
 * An answer before the pipeline stamps it: a success (with its serialized body), or an error
 * whose envelope is built once the request id is known. Plain JSON values, so a SQL store can
 * keep one for idempotent replays.
 */
export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: string | undefined;
  error?: ErrorFields;
}

/** What a handler answers; the pipeline adds `Request-Id`, `Date` and the JSON encoding. */
export interface HandlerResult {
  status: number;
  body?: unknown;
  /** A body that is not JSON, sent as it is (its `content-type` in `headers`): server-sent events. */
  text?: string;
  headers?: Record<string, string>;
}

/** The content type of every JSON answer. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
/**
 * The headers of a plain JSON answer and of an empty one. Answers share these (they are never
 * mutated: the pipeline's stamp and replays copy), and the stamp recognizes the JSON one by identity.
 */
export const JSON_HEADERS: Record<string, string> = Object.freeze({ 'content-type': JSON_CONTENT_TYPE });
/** The headers of an empty answer. */
export const NO_HEADERS: Record<string, string> = Object.freeze({});
/** What the pipeline answers when an injected fault drops the response (after the operation ran). */
export const DROPPED: StoredAnswer = Object.freeze({ status: 0, headers: NO_HEADERS, body: undefined });

/** A handler's result as an answer: its body serialized (this can throw, inside the unit of work). */
export function encodeResult(result: HandlerResult): StoredAnswer {
  if (result.text !== undefined) return { status: result.status, headers: { ...result.headers }, body: result.text };
  const hasBody = result.body !== undefined;
  const extra = result.headers;
  return {
    status: result.status,
    headers:
      extra === undefined ? (hasBody ? JSON_HEADERS : NO_HEADERS)
      : hasBody ? { 'content-type': JSON_CONTENT_TYPE, ...extra }
      : { ...extra },
    body: hasBody ? JSON.stringify(result.body) : undefined,
  };
}

/**
 * Stripe's rule for idempotent replays: an answer is stored (and replayed for 24 h) only when
 * the operation executed — a 2xx. Every error (validation and auth failures, 404s, conflicts
 * with the current state such as `claim_held` or `etag_mismatch`, 5xx) is forgotten, so a retry
 * with the same key runs again against the state it then finds.
 */
export function isStorable(answer: StoredAnswer): boolean {
  return answer.status >= 200 && answer.status < 300 && answer.error === undefined;
}
