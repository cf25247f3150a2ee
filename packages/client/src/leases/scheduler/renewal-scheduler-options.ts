import { InvalidArgumentError } from '../../core/errors/invalid-argument-error.js';
import type { Logger } from '../../core/logger.js';
import type { SchedulerObserver } from './scheduler-observer.js';
import type { HeartbeatRequest, HeartbeatResponse } from '../../resources/wire-types.js';

/** The batch heartbeat wire types, as the scheduler uses them. */
export type { HeartbeatRequest, HeartbeatResponse, HeartbeatResult } from '../../resources/wire-types.js';

/** The body the scheduler sends: exactly the leases it tracks (`claimIds`) of this session, renewed for `ttl` seconds. */
export type HeartbeatBody = HeartbeatRequest & { ttl: number; holderSession: string; claimIds: string[] };

/** Sends ONE heartbeat attempt (no retries: the scheduler owns its retry schedule). */
export type SendHeartbeat = (body: HeartbeatBody, signal: AbortSignal) => Promise<HeartbeatResponse>;

/** The timer functions the scheduler uses (defaults: the global ones, looked up at call time). */
export interface SchedulerTimers {
  /** Schedules `callback` after `ms`; the handle is `unref`'d when it supports it. */
  setTimeout(callback: () => void, ms: number): unknown;
  /** Cancels a handle returned by `setTimeout`. */
  clearTimeout(handle: unknown): void;
}

/** Backoff of heartbeat retries after a failure. */
export interface HeartbeatRetryOptions {
  /** First retry delay. Default 500 ms. */
  initialDelayMs?: number;
  /** Longest retry delay (also never more than one cadence). Default 30 000 ms. */
  maxDelayMs?: number;
  /** Shortest delay once retries are squeezed by a near local deadline. Default 100 ms. */
  minDelayMs?: number;
}

/** The scheduler's tuning a client may set (`new Leasehold({ renewal })`): clocks, jitter, retries, timeouts. */
export interface RenewalTuning {
  /** Monotonic clock in ms. Default `performance.now()`. */
  now?: (() => number) | undefined;
  /** Uniform random in [0, 1) for jitter. Default `Math.random`. */
  random?: (() => number) | undefined;
  /** Relative cadence jitter (±). Default 0.1. */
  jitter?: number | undefined;
  /** Whether a heartbeat failure is transient. Default `isTransientHeartbeatError`. */
  isTransient?: ((error: unknown) => boolean) | undefined;
  /** Retry backoff. */
  retry?: HeartbeatRetryOptions | undefined;
  /** Abandon (abort) a heartbeat attempt after this long. Default: one cadence, at least 1 s. */
  attemptTimeoutMs?: number | undefined;
  /** Safety margin before a granted duration runs out. Default max(1 s, 5 %), at most half. */
  driftMarginMs?: ((durationMs: number) => number) | undefined;
  /** Timer functions (tests may inject their own). */
  timers?: SchedulerTimers | undefined;
  /** The most `claimIds` one heartbeat request names; more leases are split over several requests. Default 10 000 (the spec's limit). */
  maxClaimIdsPerHeartbeat?: number | undefined;
}

/** Options of a `RenewalScheduler`: its tuning, and what the client wires in. */
export interface RenewalSchedulerOptions extends RenewalTuning {
  /** Sends one batch heartbeat attempt (e.g. `POST /v1/claims/heartbeat` with no retries). */
  sendHeartbeat: SendHeartbeat;
  /** This process's session, sent with every heartbeat (and with every acquire by the resource layer). */
  holderSession: string;
  /** The heartbeat `ttl` in seconds. Default 30. */
  ttlSeconds?: number;
  /** Where warnings (stalls, failures, losses) go. Default: silent. */
  logger?: Partial<Logger>;
  /** Internal: hears what the scheduler does, for metrics (the client's OpenTelemetry adapter). @internal */
  observer?: SchedulerObserver | undefined;
}

/** Refuses options a scheduler cannot run with (an `InvalidArgumentError`); returns the `ttl` in use. */
export function checkSchedulerOptions(options: RenewalSchedulerOptions): number {
  const ttl = options.ttlSeconds ?? 30;
  if (!(ttl > 0 && Number.isFinite(ttl))) throw new InvalidArgumentError('ttlSeconds', `RenewalScheduler: ttlSeconds must be a positive number; got ${String(ttl)}.`);
  if (!options.holderSession) throw new InvalidArgumentError('holderSession', 'RenewalScheduler: holderSession is required.');
  if (typeof options.sendHeartbeat !== 'function') throw new InvalidArgumentError('sendHeartbeat', 'RenewalScheduler: sendHeartbeat must be a function.');
  return ttl;
}

/** Payload of the scheduler's `stall` event. */
export interface StallEvent {
  /** How long the event loop had not run when it was seen again, in ms: at least the stall, at most a tenth of `thresholdMs` more. */
  delayMs: number;
  /** The gap that counts as a stall: a third of the shortest registered lease. */
  thresholdMs: number;
  /** Leases aborted with reason `deadline` because their local deadline passed during the stall. */
  expired: number;
}

/** Payload of the scheduler's `heartbeat` event (one per usable answer). */
export interface HeartbeatEvent {
  /** Acks in the answer. */
  results: number;
  /** Leases renewed (held or queued acks applied). */
  renewed: number;
  /** Leases lost through this answer (reported `lost`, or missing from it). */
  lost: number;
  /** Time from send to answer, in ms. */
  roundTripMs: number;
}

/** Payload of the scheduler's `failure` event. */
export interface HeartbeatFailureEvent {
  /** What the heartbeat call rejected with. */
  error: unknown;
  /** Whether `isTransient` judged it transient (non-transient ones are retried too, until deadlines). */
  transient: boolean;
  /** Consecutive failures so far. */
  attempt: number;
  /** Delay before the next attempt, in ms. */
  retryInMs: number;
}

/** Every event a `RenewalScheduler` emits, by name. */
export interface RenewalSchedulerEvents {
  /** The event loop stalled for longer than a third of the shortest lease. */
  stall: StallEvent;
  /** A heartbeat answer was applied. */
  heartbeat: HeartbeatEvent;
  /** A heartbeat attempt failed; a retry is scheduled. */
  failure: HeartbeatFailureEvent;
}
