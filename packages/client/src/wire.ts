/**
 * The wire types of the Leasehold API (generated from the OpenAPI spec by openapi-typescript,
 * owned by `@leasehold/protocol`): `import type { Wire } from '@leasehold/client'`, then
 * `Wire.Claim`, `Wire.Task`, `Wire.Message`, … or `Wire.Schemas['Claim']` for any schema.
 */
export type {
  Claim,
  ClaimList,
  AcquireClaimRequest,
  RenewClaimRequest,
  ReleaseClaimRequest,
  ReleasedClaim,
  ScopeCancellation,
  HeartbeatRequest,
  HeartbeatResponse,
  HeartbeatResult,
  Ttl,
  Details,
  Task,
  TaskStatus,
  TaskList,
  TaskNote,
  CreateTaskRequest,
  UpdateTaskRequest,
  CompleteTaskRequest,
  TaskClaim,
  TaskClaimRelease,
  Spool,
  Queue,
  PutQueueRequest,
  SendMessageRequest,
  NackMessageRequest,
  Message,
  Schemas,
} from './resources/wire-types.js';
/** Every schema, response, parameter and header of the spec (openapi-typescript's `components`). */
export type { components } from '@leasehold/protocol';
