/**
 * `@leasehold/client` (the Node entry): the deliberate public surface, and nothing else. The
 * client, its options and call options; the lease handles; every error class; the idempotency
 * stores; the logger interface and the version. Every other named type of the surface is
 * `Leasehold.<Name>` (handles, events, option bags), and the wire types are `Wire.<Name>`.
 * `tests/client/api-report.test.ts` keeps `api/client.api.md`, the reviewed report of this
 * surface, equal to what it exports.
 */

/** The client (with its named types as `Leasehold.<Name>`). */
export { Leasehold } from './client/leasehold.js';
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

/** Idempotency-key stores: in memory (default) or crash-safe files (Node only). */
export type { IdempotencyStore } from './core/idempotency/idempotency-store.js';
export { MemoryIdempotencyStore } from './core/idempotency/memory-idempotency-store.js';
export { FileIdempotencyStore } from './core/idempotency/file-idempotency-store.js';

/** The logging interface (`console` fits) and the SDK version. */
export type { Logger } from './core/logger.js';
export { VERSION } from './core/version.js';

/** The wire types of the API, generated from the spec: `Wire.Claim`, `Wire.Task`, `Wire.Message`, … */
export type * as Wire from './wire.js';
