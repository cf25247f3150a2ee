/**
 * The named types of the public surface that are not root exports: `Leasehold` re-declares each
 * as `Leasehold.<Name>` (openai-node's `OpenAI.<Name>`), so the root stays small.
 */
export type { ApiErrorDetail, ApiErrorInit, ErrorType, LeaseLostReason, TimeoutScope, UnexpectedResponseReason } from '../core/errors/index.js';
export type { FileIdempotencyStoreOptions } from '../core/idempotency/file-idempotency-store.js';
export type { MemoryIdempotencyStoreOptions } from '../core/idempotency/memory-idempotency-store.js';
export type { LogLevel, LogThreshold } from '../core/logger.js';
export type { WallClock } from '../core/monotonic-clock.js';
export type { AttemptEvent, LeaseholdResponse, RequestHooks } from '../core/request/request-options.js';
export type { FetchLike } from '../core/transport/fetch-transport.js';
export type { LeaseRenewal } from '../leases/lease-backend.js';
export type { LeaseAtRiskEvent, LeaseEvents, LeaseGrantedEvent, LeaseQueuedEvent, LeaseRenewedEvent } from '../leases/lease-events.js';
export type { RenewalSource } from '../leases/lease-control.js';
export type { LeaseStatus } from '../leases/lease-kind.js';
export type { RenewalTuning } from '../leases/scheduler/renewal-scheduler-options.js';
export type { HeartbeatOptions } from '../leases/raw-heartbeat.js';
export type { HeartbeatRetryOptions, SchedulerTimers } from '../leases/scheduler/renewal-scheduler-options.js';
export type { HeartbeatEvent, HeartbeatFailureEvent, RenewalSchedulerEvents, StallEvent } from '../leases/scheduler/scheduler-reports.js';
export type { CountedLossReason, RenewalStats } from '../leases/scheduler/scheduler-reports.js';
export type { Listener } from '../leases/typed-emitter.js';
export type { ClaimHandle, HeldSpaceLease } from '../spaces/claim-handle.js';
export type { ClaimListPromise, ClaimPage } from '../spaces/claim-list.js';
export type { Run } from '../spaces/run.js';
export type { Space } from '../spaces/space.js';
export type { SpaceClaims } from '../spaces/space-claims.js';
export type { AcquireOptions, ClaimOptions, ListClaimsOptions, ListClaimsQuery, RunOptions } from '../spaces/space-types.js';
export type { ConsumeBackoff, ConsumeContext, ConsumeFailure, ConsumeHandler, ConsumeOptions, DeadLetter } from '../spools/consume-options.js';
export type { Message, MessageSchema, SchemaIssue, SchemaOutput, SchemaResult } from '../spools/message-schema.js';
export type { QueueOptions, Spool } from '../spools/spool.js';
export type { SpoolQueue } from '../spools/spool-queue.js';
export type { ClaimedTask } from '../tasks/task-lease.js';
export type { ListTasksOptions, ListTasksQuery, TaskWithEtag, TaskWriteGuard } from '../tasks/task-types.js';
export type { TaskWorkOptions } from '../tasks/task-work.js';
export type { Tasks } from '../tasks/tasks.js';
export type { TaskWorkContext } from '../tasks/work-context.js';
export type { OpenTelemetryApi } from '../telemetry/otel-api.js';
export type { CloseOptions } from './leasehold-client.js';
export type { DispatcherLike } from './leasehold-options.js';
export type { LeaseholdErrorOptions } from '../core/errors/leasehold-error.js';
export type { UnexpectedResponseInit } from '../core/errors/unexpected-response-error.js';
export type { Redactor, RedactorOptions } from '../core/redact.js';
export type { HttpMethod } from '../core/request/request-options.js';
export type { OtelAttributes, OtelCounter, OtelHistogram, OtelInstrumentOptions, OtelMeter, OtelObservableGauge, OtelObservableResult, OtelSpan, OtelTracer } from '../telemetry/otel-api.js';
