import type { components } from '@leasehold/protocol';

/** Every schema of the spec, by name. */
export type Schemas = components['schemas'];

/** A claim row of a space: the current holder of a key (the acquire answer also carries `token`). */
export type Claim = Schemas['Claim'];
/** One page of held claims in key order. */
export type ClaimList = Schemas['ClaimList'];
/** The body of an acquire (`POST /v1/spaces/{spaceId}/claims`). */
export type AcquireClaimRequest = Schemas['AcquireClaimRequest'];
/** The body of a space-claim renew. */
export type RenewClaimRequest = Schemas['RenewClaimRequest'];
/** The body of a space-claim release. */
export type ReleaseClaimRequest = Schemas['ReleaseClaimRequest'];
/** The answer to a space-claim release. */
export type ReleasedClaim = Schemas['ReleasedClaim'];
/** The answer to a run (scope) cancellation. */
export type ScopeCancellation = Schemas['ScopeCancellation'];
/** The batch heartbeat body. */
export type HeartbeatRequest = Schemas['HeartbeatRequest'];
/** The batch heartbeat answer: one ack per touched lease. */
export type HeartbeatResponse = Schemas['HeartbeatResponse'];
/** One ack of a batch heartbeat. */
export type HeartbeatResult = Schemas['HeartbeatResult'];
/** A heartbeat `ttl`: seconds, a numeric string or a duration string (`"30s"`, `"PT30S"`). */
export type Ttl = Schemas['Ttl'];
/** A lease's progress report, stored by the heartbeat (an object of at most 16 KiB). */
export type Details = Schemas['Details'];
/** A task. */
export type Task = Schemas['Task'];
/** A task's status. */
export type TaskStatus = Schemas['TaskStatus'];
/** One page of tasks. */
export type TaskList = Schemas['TaskList'];
/** A note on a task. */
export type TaskNote = Schemas['TaskNote'];
/** The body of a task create. */
export type CreateTaskRequest = Schemas['CreateTaskRequest'];
/** The fields a task PATCH may change. */
export type UpdateTaskRequest = Schemas['UpdateTaskRequest'];
/** The body of a task completion. */
export type CompleteTaskRequest = Schemas['CompleteTaskRequest'];
/** A task claim (the claim answer carries `token`; renew answers do not). */
export type TaskClaim = Schemas['TaskClaim'];
/** The answer to a task-claim release. */
export type TaskClaimRelease = Schemas['TaskClaimRelease'];
/** A spool: a namespace of queues. */
export type Spool = Schemas['Spool'];
/** A queue of a spool. */
export type Queue = Schemas['Queue'];
/** The body of a queue create/update. */
export type PutQueueRequest = Schemas['PutQueueRequest'];
/** The body of a message send. */
export type SendMessageRequest = Schemas['SendMessageRequest'];
/** The body of a nack. */
export type NackMessageRequest = Schemas['NackMessageRequest'];
/** A queue message (a received one also carries `claimId` and `fence`). */
export type Message = Schemas['Message'];
