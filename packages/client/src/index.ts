/** The client: options, close options and the default heartbeat ttl. */
export { Leasehold, type CloseOptions } from './leasehold.js';
/** Options of `new Leasehold()`, and the default `heartbeatTtlSeconds` (30). */
export { DEFAULT_HEARTBEAT_TTL_SECONDS, type LeaseholdOptions } from './leasehold-options.js';
/** Advanced renewal-scheduler tuning (`renewal` option). */
export type { RenewalTuning } from './client-runtime.js';
/** Per-call options: idempotency key, durable `operationId`, signal, timeout and retry overrides. */
export type { CallOptions } from './resources/call-options.js';

/** Spaces, runs and their claims. */
export { Space, SpaceClaims, Run, type RunOptions, type ClaimOptions } from './space.js';
/** A key claimed by a run: `acquire()`, `tryAcquire()`, `run(fn)`. */
export { ClaimHandle, type AcquireOptions } from './claim-handle.js';
/** Paginated claim lists: awaitable for one page, async-iterable over every claim. */
export { ClaimPage, ClaimListPromise, type ListClaimsOptions } from './claim-list.js';

/** Tasks, task claims and the safe worker loop. */
export { Tasks, type TaskWithEtag, type ClaimedTask, type ListTasksOptions } from './tasks.js';
/** What `lh.tasks.work()` takes and gives its function. */
export type { TaskWorkContext, TaskWorkOptions } from './task-work.js';
/** The `If-Match` / `X-Task-Claim` preconditions of a task write, and the query of a task list page. */
export type { ListTasksQuery, TaskWriteGuard } from './resources/tasks.js';

/** Spools, their queues and the consume loop. */
export { Spool, SpoolQueue } from './spool.js';
/** What `queue.consume()` takes: handler, options (backoff, maxDeliveries, deadLetter, onError) and what onError hears. */
export type { ConsumeBackoff, ConsumeContext, ConsumeFailure, ConsumeHandler, ConsumeOptions, DeadLetter } from './spool-consumer.js';
/** The raw batch heartbeat's options. */
export type { HeartbeatOptions } from './raw-heartbeat.js';

/** Lease handles: the base class and one per kind of lease. */
export { Lease } from './leases/lease.js';
/** A lease on a key of a space. */
export { SpaceLease } from './space-lease.js';
/** A 15-minute task claim. */
export { TaskLease } from './task-lease.js';
/** A received message under its lease. */
export { SpoolLease } from './spool-lease.js';
/** Lease events, kinds, states and renewal statistics. */
export type {
  LeaseAtRiskEvent,
  LeaseEvents,
  LeaseGrantedEvent,
  LeaseQueuedEvent,
  LeaseRenewedEvent,
  LeaseRenewal,
  LeaseKind,
  LeaseStatus,
  RenewalSource,
  RenewalStats,
  RenewalSchedulerEvents,
  HeartbeatEvent,
  HeartbeatFailureEvent,
  StallEvent,
  Listener,
} from './leases/index.js';

/** Every error class of the SDK (base class, API errors by status, connection/timeout/abort, lease loss). */
export * from './core/errors.js';
/** Calls after `close()` reject with this. */
export { ClientClosedError } from './closable-transport.js';
/** `tasks.work()` refused a claim with too little time left. */
export { UnusableLeaseError } from './unusable-lease-error.js';

/** Idempotency-key stores: in memory (default) or crash-safe files. */
export {
  FileIdempotencyStore,
  MemoryIdempotencyStore,
  type FileIdempotencyStoreOptions,
  type IdempotencyStore,
  type MemoryIdempotencyStoreOptions,
} from './core/index.js';
/** Logging, metrics hooks, the fetch signature, responses and the SDK version. */
export { VERSION, type FetchLike, type LeaseholdResponse, type Logger, type RequestHooks, type AttemptEvent } from './core/index.js';

/** Wire types of the resources. */
export type {
  Claim,
  ClaimList,
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
  TaskClaim,
  TaskClaimRelease,
  CreateTaskRequest,
  UpdateTaskRequest,
  CompleteTaskRequest,
  Spool as SpoolInfo,
  Queue,
  Message,
} from './wire-types.js';
/** Wire types of the Leasehold API, generated from the OpenAPI spec. */
export type { paths, components, operations } from './generated/openapi.js';

/** Types that the public surface refers to: request options, list queries, clocks, redaction, scheduler tuning. */
export type { HttpMethod, RequestOptions } from './core/request-options.js';
export type { WallClock } from './core/monotonic-clock.js';
export type { Redactor } from './core/redact.js';
export type { ListClaimsQuery } from './resources/space-claims.js';
export type { HeartbeatBody, HeartbeatRetryOptions, RenewalSchedulerOptions, SchedulerTimers, SendHeartbeat } from './leases/renewal-scheduler-options.js';
export type { QueryValue } from './core/build-url.js';
export type { Schemas } from './wire-types.js';
export type { CountedLossReason } from './leases/renewal-stats.js';
