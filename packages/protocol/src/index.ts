/**
 * `@leasehold/protocol`: the one owner of the wire rules the client, the server and the mocks
 * share. Runtime-agnostic (no `node:` imports, no dependencies), private, bundled into each
 * published package at build time.
 */

/** The generated wire types (openapi-typescript), one copy for every package. */
export type { components, operations, paths } from './generated/openapi.js';
/** The generated operation metadata and its ids. */
export { isOperationId, operationList, operationMetadata, type ApiOperationId, type ControlOperationId, type OperationId } from './operations.js';
export type { OperationMeta, ParamMeta } from './operation-meta.js';
/** Typed views of an operation's inputs and answers, keyed by operationId. */
export type { OperationBody, OperationHeaders, OperationPathParams, OperationQuery, OperationResponseBody } from './operation-types.js';
/** The error-code catalogue and the status → type table. */
export { errorCatalogue, errorStatusByCode, errorTypeByStatus, errorTypeOf, isErrorCode, type ErrorCode, type ErrorType } from './error-codes.js';
/** The one builder of error envelopes. */
export { errorDocAnchor, errorEnvelope, type EnvelopeContext, type ErrorDetail, type ErrorEnvelope, type ErrorFields } from './envelope.js';
/** The one string-length rule: code points, as JSON Schema counts. */
export { codePointLength, hasCodePointLength } from './string-length.js';
/** The one duration grammar. */
export { MAX_TTL_SECONDS, durationMs, parseDuration, ttlSeconds, type Duration, type DurationNumberUnit } from './duration.js';
/** Base paths, mounts and base URLs. */
export {
  DEFAULT_BASE_PATHS,
  Mounts,
  isUnderBase,
  normalizeBasePath,
  parseBaseUrl,
  pathBeneath,
  pathUnderBase,
  trimTrailingSlashes,
  type BaseUrl,
  type MountMatch,
} from './base-path.js';
/** Lease kinds and the operations that grant leases. */
export { LEASE_KINDS, leaseGrants, type LeaseKind } from './lease-kind.js';
