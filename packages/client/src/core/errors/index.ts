/** Every error class of the request core, in one import. */
export { LeaseholdError, type LeaseholdErrorOptions } from './leasehold-error.js';
export {
  ApiError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  GoneError,
  InternalServerError,
  NotFoundError,
  PayloadTooLargeError,
  PaymentRequiredError,
  PermissionDeniedError,
  PreconditionFailedError,
  PreconditionRequiredError,
  RateLimitError,
  ServiceUnavailableError,
  UnprocessableEntityError,
  UnsupportedMediaTypeError,
  type ApiErrorDetail,
  type ApiErrorInit,
  type ErrorType,
} from './api-error.js';
export { AbortError, ConnectionError, TimeoutError, type TimeoutScope } from './connection-errors.js';
export { LeaseLostError, type LeaseLostReason } from './lease-lost-error.js';
export { InvalidArgumentError } from './invalid-argument-error.js';
export { UnexpectedResponseError, type UnexpectedResponseInit, type UnexpectedResponseReason } from './unexpected-response-error.js';
