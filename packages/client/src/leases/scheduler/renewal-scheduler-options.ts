import { InvalidArgumentError } from '../../core/errors/invalid-argument-error.js';
import type { Logger } from '../../core/logger.js';
import type { SchedulerObserver } from './scheduler-reports.js';
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
