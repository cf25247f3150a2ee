/**
 * The Leasehold engine: the pure in-memory state of the reference server (no HTTP, no timers;
 * time from an injected clock). The HTTP layer builds wire shapes from what it returns.
 */

/** The engine itself, its options and its composite answers. */
export { Engine, type EngineOptions, type EngineStats, type HeartbeatRequest, type HeartbeatResponse } from './engine.js';
/** Clocks (real and manual) and the RFC 3339 formatter. */
export { ManualClock, RealClock, toUtc, type Clock } from './clock.js';
/** The one error class and the code → status / status → type tables. */
export { EngineError, errorStatusByCode, errorTypeByStatus, isEngineError, type ErrorCode } from './errors.js';
/** The rule every stored JSON value obeys (nesting depth, representable numbers). */
export { MAX_JSON_DEPTH, describeJsonProblem, jsonProblem, requireStorableJson, type JsonProblem } from './json-value.js';
/** Random sources for ids and tokens. */
export { cryptoRandom, seededRandom, type RandomSource } from './random.js';
/** The heartbeat `ttl` parser and its refusal message. */
export { parseTtl, ttlRefusal } from './ttl.js';
/** Keys, accounts, permissions and authentication. */
export {
  ALL_PERMISSIONS,
  DEFAULT_KEYS,
  KeyStore,
  READ_PERMISSIONS,
  canSeeSpace,
  hasPermission,
  requirePermission,
  type AuthResult,
  type Caller,
  type Credential,
  type CredentialUpdate,
  type KeyConfig,
  type Permission,
  type SpaceAccess,
} from './credentials.js';
/** Per-credential token-bucket rate limits. */
export { RateLimiter, type RateDecision } from './rate-limiter.js';
/** The shared lease engine and its lease vocabulary. */
export { LeaseEngine, type LeaseKindHandler, type LeaseStats } from './lease-engine.js';
/** Lease constants and types. */
export { TOMBSTONE_MS, type Details, type LeaseKind, type LeaseStatus, type LostReason } from './lease-record.js';
/** One heartbeat ack. */
export type { HeartbeatResult } from './heartbeat-result.js';
/** The batch heartbeat over a lease engine. */
export { heartbeat, heartbeatClaimId, type HeartbeatParams } from './heartbeat.js';
/** Space claims. */
export { CANCELLED_SCOPE_MS, SpaceClaims } from './space-claims.js';
/** Space-claim inputs and lease bounds. */
export {
  SPACE_LEASE_MAX_SECONDS,
  SPACE_LEASE_MIN_SECONDS,
  type AcquireParams,
  type KeyParams,
  type ListParams,
} from './space-claim-params.js';
/** Space-claim answers (wire shapes). */
export type { Claim, ClaimList, ReleasedClaim, ScopeCancellation } from './space-claim-views.js';
/** The previous release shown on a claim row. */
export type { PreviousRelease } from './space-state.js';
/** Tasks and task claims. */
export { Tasks, type ProtectedTaskWrite, type TaskChanges, type TaskWrite } from './tasks.js';
/** Task answers (wire shapes) and the ETag format. */
export {
  MAX_NOTES_PER_TASK,
  TASK_LEASE_SECONDS,
  taskEtag,
  type Task,
  type TaskClaim,
  type TaskClaimRelease,
  type TaskClaimSummary,
  type TaskNote,
  type TaskResult,
  type TaskStatus,
} from './task-record.js';
/** Task lists: one page in id order and its cursor. */
export { TASK_PAGE_BYTES, decodeTaskCursor, encodeTaskCursor, type TaskList } from './task-list.js';
/** The task lifecycle: attempts, the last claim's outcome, stalled tasks and the retry backoff. */
export {
  TASK_RETRY_BACKOFF_INITIAL_MS,
  TASK_RETRY_BACKOFF_MAX_MS,
  leaseOutcome,
  retryBackoffMs,
  taskLifecycle,
  type LastClaimFacts,
  type TaskClaimOutcome,
  type TaskLastClaim,
  type TaskLifecycle,
} from './task-lifecycle.js';
/** Task guards: If-Match and claim-token validation. */
export { checkIfMatch, validateTaskToken } from './task-guards.js';
/** Spools, queues and spool leases. */
export { Spools } from './spools.js';
/** Spool inputs. */
export type { LeaseParams, QueueParams } from './spool-params.js';
/** Spool answers (wire shapes). */
export {
  MAX_QUEUES_PER_SPOOL,
  type Message,
  type Queue,
  type ReceivedMessage,
  type Spool,
  type SpoolLeaseState,
} from './spool-records.js';
/** Idempotency records. */
export { IDEMPOTENCY_TTL_MS, IdempotencyStore, type IdempotencyBegin } from './idempotency-store.js';
/** Idempotency-Key normalization and request fingerprints. */
export { normalizeIdempotencyKey, requestFingerprint } from './idempotency-key.js';
/** Test levers. */
export { EngineControls } from './controls.js';
/** The read-only activity views (the console's reads) and their wire shapes. */
export { Activity, isLoss, lostClaimOf, pageQuery, queueSortKey, type PageParams } from './activity.js';
export {
  MAX_LOST_SHOWN,
  pageAfter,
  type LostClaim,
  type QueueStats,
  type QueueStatsList,
  type SessionActivity,
  type SessionList,
  type SpaceActivity,
  type SpaceList,
  type SpaceSummary,
  type Waiter,
} from './activity-views.js';
/** Lease events: the log, its cursor and who may read an event. */
export {
  LeaseEventLog,
  MAX_EVENTS_PER_ACCOUNT,
  decodeEventCursor,
  endedType,
  eventId,
  eventQuery,
  mayRead,
  type LeaseEvent,
  type LeaseEventList,
  type LeaseEventType,
} from './lease-events.js';
/** Queue history in 10-second samples. */
export { leasedPageQuery, queueActivityPage, type LeasedInOrder, type LeasedMessage, type QueueActivity } from './queue-activity.js';
export { QueueHistory, SAMPLE_COUNT, SAMPLE_MS, bucketOf, samplesOf, type QueueSample, type SampleCounts } from './queue-history.js';
/** Heartbeats per session. */
export { RATE_BUCKETS, SessionHeartbeats, firstRateBucket, type SessionBeat } from './session-heartbeats.js';
