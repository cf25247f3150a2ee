import type { ConnectionError } from './connection-errors.js';

/** Connection errors that no retry can cure (internal: not part of the error's public shape). */
const permanent = new WeakSet<ConnectionError>();

/** Marks `error` as one a retry cannot cure (a name that never resolves); answers it. */
export function markPermanent(error: ConnectionError): ConnectionError {
  permanent.add(error);
  return error;
}

/** Whether `error` was marked by {@link markPermanent}. */
export function isPermanent(error: ConnectionError): boolean {
  return permanent.has(error);
}
