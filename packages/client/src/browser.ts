/**
 * `@leasehold/client` in the browser (the `browser` export condition): the surface of the Node
 * entry (`index.ts`) less `FileIdempotencyStore`, with a fetch-only `Leasehold` — no undici, no
 * `node:` import. Its typings are the Node entry's (the one extra name fails to bundle).
 */

/** The client (with its named types as `Leasehold.<Name>`). */
export { Leasehold } from './client/leasehold-browser.js';
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

/** The idempotency-key store of the browser: in memory (files need Node). */
export type { IdempotencyStore } from './core/idempotency/idempotency-store.js';
export { MemoryIdempotencyStore } from './core/idempotency/memory-idempotency-store.js';

/** The logging interface (`console` fits) and the SDK version. */
export type { Logger } from './core/logger.js';
export { VERSION } from './core/version.js';

/** The wire types of the API, generated from the spec: `Wire.Claim`, `Wire.Task`, `Wire.Message`, … */
export type * as Wire from './wire.js';
