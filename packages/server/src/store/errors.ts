/**
 * The database could not be reached, or was lost mid-request: nothing of the unit committed.
 * The pipeline answers 503 `service_unavailable` with `Retry-After: retryAfterSeconds`.
 * @example
 * if (error instanceof StoreUnavailableError) return unavailable(error.retryAfterSeconds);
 */
export class StoreUnavailableError extends Error {
  /** Whole seconds (≥ 1) a client should wait before retrying. */
  readonly retryAfterSeconds: number;

  /** An outage; `cause` is the driver's error (never shown to clients). */
  constructor(message: string, options: { cause?: unknown; retryAfterSeconds?: number } = {}) {
    super(message, { cause: options.cause });
    this.name = 'StoreUnavailableError';
    this.retryAfterSeconds = Math.max(1, Math.ceil(options.retryAfterSeconds ?? 1));
  }
}

/**
 * A store could not be opened: a malformed URL, an unreachable or refusing database, or a
 * directory that cannot hold an embedded one. The message says which, without the password.
 */
export class StoreOpenError extends Error {
  /** A failure to open `target` (already stripped of credentials). */
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'StoreOpenError';
  }
}

/** True for a `StoreUnavailableError`. */
export function isStoreUnavailable(error: unknown): error is StoreUnavailableError {
  return error instanceof StoreUnavailableError;
}

/** `advanceClock` on a store whose clock is real (the control answers 409 `clock_not_manual`). */
export class ClockNotManualError extends Error {
  /** The clock of this store is real. */
  constructor() {
    super('The clock is real; start the server with --clock manual to advance it.');
    this.name = 'ClockNotManualError';
  }
}
