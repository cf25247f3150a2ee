import { LeaseholdClient } from './leasehold-client.js';
import type * as T from './leasehold-types.js';
import type { LeaseholdOptions } from './leasehold-options.js';
import { nodePlatform } from './node-platform.js';

/**
 * The Leasehold client: space claims, tasks and spools, every lease renewed by ONE batch
 * heartbeat per cadence, every mutating call idempotent across retries.
 * (The Node entry: undici by default, or the `fetch` / `dispatcher` you give it.)
 * @example
 * const lh = new Leasehold({ baseUrl: 'https://api.leasehold.example', apiKey: process.env.LEASEHOLD_API_KEY! });
 * const run = lh.space(spaceId).run(runId, { holder: 'worker-1' });
 * const rows = await run.claim('reports/2026-11').run(async (lease) => rebuild({ fence: lease.fence, signal: lease.signal }));
 * await lh.close();
 * @see https://api.leasehold.example/docs
 */
export class Leasehold extends LeaseholdClient {
  /** Validates every option first: a bad one throws an `InvalidArgumentError` naming it and its value. */
  constructor(options: LeaseholdOptions) {
    super(options, nodePlatform);
  }
}

/**
 * The named types of the client's surface (`Leasehold.SpoolQueue`, `Leasehold.ConsumeOptions`,
 * `Leasehold.TaskWorkContext`, ...): everything a signature of the client mentions that is not a
 * root export.
 */
// eslint-disable-next-line @typescript-eslint/no-namespace
export declare namespace Leasehold {
  export type AcquireOptions = T.AcquireOptions;
  export type ApiErrorDetail = T.ApiErrorDetail;
  export type ApiErrorInit = T.ApiErrorInit;
  export type AttemptEvent = T.AttemptEvent;
  export type ClaimedTask = T.ClaimedTask;
  export type ClaimHandle = T.ClaimHandle;
  export type ClaimListPromise = T.ClaimListPromise;
  export type ClaimOptions = T.ClaimOptions;
  export type ClaimPage = T.ClaimPage;
  export type CloseOptions = T.CloseOptions;
  export type ConsumeBackoff = T.ConsumeBackoff;
  export type ConsumeContext<B = unknown> = T.ConsumeContext<B>;
  export type ConsumeFailure = T.ConsumeFailure;
  export type ConsumeHandler<B = unknown> = T.ConsumeHandler<B>;
  export type ConsumeOptions = T.ConsumeOptions;
  export type CountedLossReason = T.CountedLossReason;
  export type DeadLetter = T.DeadLetter;
  export type DispatcherLike = T.DispatcherLike;
  export type ErrorType = T.ErrorType;
  export type FetchLike = T.FetchLike;
  export type FileIdempotencyStoreOptions = T.FileIdempotencyStoreOptions;
  export type HeartbeatEvent = T.HeartbeatEvent;
  export type HeartbeatFailureEvent = T.HeartbeatFailureEvent;
  export type HeartbeatOptions = T.HeartbeatOptions;
  export type HeartbeatRetryOptions = T.HeartbeatRetryOptions;
  export type HeldSpaceLease = T.HeldSpaceLease;
  export type LeaseAtRiskEvent = T.LeaseAtRiskEvent;
  export type LeaseEvents = T.LeaseEvents;
  export type LeaseGrantedEvent = T.LeaseGrantedEvent;
  export type LeaseholdResponse<D> = T.LeaseholdResponse<D>;
  export type LeaseKind = T.LeaseKind;
  export type LeaseLostReason = T.LeaseLostReason;
  export type LeaseQueuedEvent = T.LeaseQueuedEvent;
  export type LeaseRenewal = T.LeaseRenewal;
  export type LeaseRenewedEvent = T.LeaseRenewedEvent;
  export type LeaseStatus = T.LeaseStatus;
  export type ListClaimsOptions = T.ListClaimsOptions;
  export type ListClaimsQuery = T.ListClaimsQuery;
  export type Listener<P> = T.Listener<P>;
  export type ListTasksOptions = T.ListTasksOptions;
  export type ListTasksQuery = T.ListTasksQuery;
  export type LogLevel = T.LogLevel;
  export type LogThreshold = T.LogThreshold;
  export type MemoryIdempotencyStoreOptions = T.MemoryIdempotencyStoreOptions;
  export type Message<B = unknown> = T.Message<B>;
  export type MessageSchema<O = unknown> = T.MessageSchema<O>;
  export type OpenTelemetryApi = T.OpenTelemetryApi;
  export type QueueOptions<S extends T.MessageSchema = T.MessageSchema> = T.QueueOptions<S>;
  export type RenewalSchedulerEvents = T.RenewalSchedulerEvents;
  export type RenewalSource = T.RenewalSource;
  export type RenewalStats = T.RenewalStats;
  export type RenewalTuning = T.RenewalTuning;
  export type RequestHooks = T.RequestHooks;
  export type Run = T.Run;
  export type RunOptions = T.RunOptions;
  export type SchedulerTimers = T.SchedulerTimers;
  export type SchemaIssue = T.SchemaIssue;
  export type SchemaOutput<S extends T.MessageSchema> = T.SchemaOutput<S>;
  export type SchemaResult<O> = T.SchemaResult<O>;
  export type Space = T.Space;
  export type SpaceClaims = T.SpaceClaims;
  export type Spool = T.Spool;
  export type SpoolQueue<B = unknown> = T.SpoolQueue<B>;
  export type StallEvent = T.StallEvent;
  export type Tasks = T.Tasks;
  export type TaskWithEtag = T.TaskWithEtag;
  export type TaskWorkContext = T.TaskWorkContext;
  export type TaskWorkOptions<R = unknown> = T.TaskWorkOptions<R>;
  export type TaskWriteGuard = T.TaskWriteGuard;
  export type TimeoutScope = T.TimeoutScope;
  export type UnexpectedResponseReason = T.UnexpectedResponseReason;
  export type WallClock = T.WallClock;
}
