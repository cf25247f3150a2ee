/** Lease handles and the batch-heartbeat renewal scheduler. */
export { Lease, type LeaseInit } from './lease.js';
export type { LeaseBackend, LeaseRenewal } from './lease-backend.js';
export type {
  LeaseAtRiskEvent,
  LeaseEvents,
  LeaseGrantedEvent,
  LeaseQueuedEvent,
  LeaseRenewedEvent,
} from './lease-events.js';
export type { RenewalSource } from './lease-control.js';
export {
  renewalDurationMs,
  spaceClaimDurationMs,
  SPACE_TTL_MAX_SECONDS,
  SPACE_TTL_MIN_SECONDS,
  TASK_CLAIM_DURATION_MS,
  type LeaseKind,
  type LeaseStatus,
} from './lease-kind.js';
export { defaultDriftMarginMs, type LeaseTiming } from './lease-deadline.js';
export { leaseLostReasonOf, toLeaseLostError } from './lease-lost-reason.js';
export { RenewalScheduler } from './renewal-scheduler.js';
export type {
  HeartbeatBody,
  HeartbeatEvent,
  HeartbeatFailureEvent,
  HeartbeatRetryOptions,
  RenewalSchedulerEvents,
  RenewalSchedulerOptions,
  SchedulerTimers,
  SendHeartbeat,
  StallEvent,
} from './renewal-scheduler-options.js';
export type { CountedLossReason, RenewalStats } from './renewal-stats.js';
export { isTransientHeartbeatError } from './transient-error.js';
export type { Listener } from './typed-emitter.js';
