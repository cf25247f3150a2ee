import { StoreUnavailableError } from '../errors.js';

/** SQLSTATE classes and codes that mean "the database is not there right now", not "the request is wrong". */
const UNAVAILABLE_CLASSES = ['08', '53', '57', '58'];
const UNAVAILABLE_CODES = new Set(['40001', '40P01', '55P03', '25P03', '57014']);
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH']);
const NETWORK_MESSAGES = [
  'Connection terminated',
  'connection error',
  'not queryable',
  'timeout exceeded when trying to connect',
  'Client was closed',
  'Cannot use a pool after calling end',
  'PGlite is closed',
];

/**
 * `read_only_sql_transaction`: the connection reached a read-only node — a standby, or a primary
 * demoted by a failover whose connections survived. Nothing was written; the next connection
 * (through a router such as HAProxy) reaches the new primary, so it is an outage, not a bug.
 */
const READ_ONLY = '25006';

/** True when `error` is PostgreSQL refusing a write on a read-only node (the connection is then destroyed, not reused). */
export function isReadOnlyRefusal(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === READ_ONLY;
}

/**
 * The outage a driver error stands for (a lost or refused connection, a timeout, a shutdown,
 * a lock or serialization conflict worth retrying), or `undefined` for any other error, which
 * is a bug and answers 500. Nothing of the unit committed in either case.
 */
export function asUnavailable(error: unknown): StoreUnavailableError | undefined {
  if (error instanceof StoreUnavailableError) return error;
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, message } = error as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' ? message : '';
  const sqlState = typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
  const unavailable =
    (sqlState !== undefined && (UNAVAILABLE_CODES.has(sqlState) || UNAVAILABLE_CLASSES.includes(sqlState.slice(0, 2)))) ||
    (typeof code === 'string' && NETWORK_CODES.has(code)) ||
    NETWORK_MESSAGES.some((m) => text.includes(m));
  if (sqlState === READ_ONLY) {
    return new StoreUnavailableError('The database is read-only here (a standby or a demoted primary); nothing was written: retry shortly.', { cause: error, retryAfterSeconds: 1 });
  }
  if (!unavailable) return undefined;
  return new StoreUnavailableError('The server cannot reach its database; retry shortly.', { cause: error, retryAfterSeconds: 1 });
}
