/**
 * The public surface both entries share (`index.ts` for Node, `browser.ts` for browsers): options,
 * lease handles, every error class, the in-memory idempotency store, the logger interface, the
 * version and the wire types. Each entry adds its own `Leasehold` (and Node `FileIdempotencyStore`).
 */

/** Options of `new Leasehold()`. */
export type { LeaseholdOptions } from './client/leasehold-options.js';
/** Per-call options: idempotency key, durable `operationId`, signal, timeout and retry overrides. */
export type { CallOptions } from './resources/call-options.js';

/** Lease handles: the base class and one per kind of lease. */
export { Lease } from './leases/lease.js';
export { SpaceLease } from './spaces/space-lease.js';
export { TaskLease } from './tasks/task-lease.js';
export { SpoolLease } from './spools/spool-lease.js';

/** Every error class of the SDK (base class, API errors by status, connection/timeout/abort, lease loss). */
export {
  AbortError,
  ApiError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  GoneError,
  InternalServerError,
  InvalidArgumentError,
  LeaseholdError,
  LeaseLostError,
  NotFoundError,
  PayloadTooLargeError,
  PaymentRequiredError,
  PermissionDeniedError,
  PreconditionFailedError,
  PreconditionRequiredError,
  RateLimitError,
  ServiceUnavailableError,
  TimeoutError,
  UnexpectedResponseError,
  UnprocessableEntityError,
  UnsupportedMediaTypeError,
} from './core/errors/index.js';
/** Calls after `close()` reject with this. */
export { ClientClosedError } from './core/transport/client-closed-error.js';
/** `tasks.work()` refused a claim with too little time left. */
export { UnusableLeaseError } from './tasks/unusable-lease-error.js';
export { AttemptsExhaustedError } from './tasks/attempts-exhausted-error.js';
/** A message body failed its queue's schema. */
export { MessageSchemaError } from './spools/message-schema.js';

/** Idempotency-key stores: the interface and the in-memory default (crash-safe files: the Node entry). */
export type { IdempotencyStore } from './core/idempotency/idempotency-store.js';
export { MemoryIdempotencyStore } from './core/idempotency/memory-idempotency-store.js';

/** The logging interface (`console` fits) and the SDK version. */
export type { Logger } from './core/logger.js';
export { VERSION } from './core/version.js';

/** The wire types of the API, generated from the spec: `Wire.Claim`, `Wire.Task`, `Wire.Message`, … */
export type * as Wire from './wire.js';
