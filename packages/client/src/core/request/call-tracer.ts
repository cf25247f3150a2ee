import type { LeaseholdError } from '../errors/leasehold-error.js';

/** What a call is, for telemetry: its API operation and, for lease calls, the lease it touches. */
export interface OperationLabel {
  /** The spec's operationId (`renewSpaceClaim`). */
  operationId: string;
  /** The path template (`/v1/spaces/{spaceId}/claims/{key}/renew`): low-cardinality, for span names. */
  urlTemplate: string;
  /** The lease's claim id, when the call acts on one lease. */
  claimId?: string | undefined;
  /** What that lease guards (`space`, `task`, `spool`). */
  leaseKind?: string | undefined;
}

/** One API call as a tracer sees it when it starts. */
export interface TracedCall {
  /** The HTTP method (upper case). */
  method: string;
  /** The full URL (query included). */
  url: string;
  /** The API path under the base URL. */
  path: string;
  operation: OperationLabel | undefined;
}

/** How one API call ended. */
export interface CallOutcome {
  /** The answer's status (the last attempt's), if one came. */
  status: number | undefined;
  /** What the call rejects with, if it failed. */
  error: LeaseholdError | undefined;
  /** Attempts made. */
  attempts: number;
  requestId: string | undefined;
}

/** The trace of one API call in progress. */
export interface CallTrace {
  /** Attempt `attempt` failed with `error`; another follows after `delayMs`. */
  retry(attempt: number, delayMs: number, error: LeaseholdError): void;
  /** The call is over. */
  end(outcome: CallOutcome): void;
}

/**
 * Observes API calls from the request function without it knowing who listens: the
 * OpenTelemetry adapter (`src/telemetry`) implements it; without one nothing is recorded.
 */
export interface CallTracer {
  /** Starts the trace of one call (`undefined`: not traced). */
  start(call: TracedCall): CallTrace | undefined;
}
