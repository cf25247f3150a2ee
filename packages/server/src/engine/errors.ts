import { errorStatusByCode, errorTypeByStatus, type ErrorCode } from '@leasehold/protocol';

/**
 * Every machine-readable error code of the Leasehold API mapped to its HTTP status, and the
 * envelope `type` of each status: owned by `@leasehold/protocol` (generated from the spec's
 * `ErrorCode` catalogue and `ErrorType`), re-exported for the engine's callers.
 */
export { errorStatusByCode, errorTypeByStatus, type ErrorCode };

/**
 * The one error the engine throws: a code from the envelope's list, a message that never
 * carries a secret, and the offending parameter when there is one.
 * @example
 * throw new EngineError('claim_held', 'The key is held by another claimant.', 'key');
 */
export class EngineError extends Error {
  /** The machine-readable reason. */
  readonly code: ErrorCode;
  /** The body field, header or path parameter the error is about, if any. */
  readonly param: string | undefined;

  /** Create an error with `code`, a secret-free `message` and an optional `param`. */
  constructor(code: ErrorCode, message: string, param?: string) {
    super(message);
    this.name = 'EngineError';
    this.code = code;
    this.param = param;
  }

  /** The HTTP status this error answers with. */
  get status(): number {
    return errorStatusByCode[this.code];
  }
}

/** True when `value` is an `EngineError` (optionally with the given code). */
export function isEngineError(value: unknown, code?: ErrorCode): value is EngineError {
  return value instanceof EngineError && (code === undefined || value.code === code);
}
