import type { Engine } from '../engine/index.js';
import type { ErrorFields } from '@leasehold/protocol';

/**
 * An answer before `finish` stamps it: a success (with its serialized body), or an error whose
 * envelope is built once the request id is known. Only successes are stored for idempotent replay.
 */
export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: string | undefined;
  error?: ErrorFields;
}

/** The content type of every JSON answer. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
/**
 * The headers of a plain JSON answer and of an empty one. Stored answers share these (they are
 * never mutated: `finish` and replays copy), and `finish` recognizes the JSON one by identity.
 */
export const JSON_HEADERS: Record<string, string> = Object.freeze({ 'content-type': JSON_CONTENT_TYPE });
/** The headers of an empty answer. */
export const NO_HEADERS: Record<string, string> = Object.freeze({});
/** What `run` answers when an injected fault drops the response (after the handler ran). */
export const DROPPED: StoredAnswer = Object.freeze({ status: 0, headers: NO_HEADERS, body: undefined });

/**
 * Ends an idempotent request, by Stripe's rule: an answer is stored (and replayed for 24 h) only
 * when the operation executed — a 2xx. Every error (validation and auth failures, 404s,
 * conflicts with the current state such as `claim_held` or `etag_mismatch`, 5xx) is forgotten,
 * so a retry with the same key runs again against the state it then finds.
 */
export function settle(
  store: Engine['idempotency'],
  credentialId: string,
  key: string,
  answer: StoredAnswer,
): StoredAnswer {
  if (answer.status >= 200 && answer.status < 300 && answer.error === undefined) store.complete(credentialId, key, answer);
  else store.abandon(credentialId, key);
  return answer;
}

