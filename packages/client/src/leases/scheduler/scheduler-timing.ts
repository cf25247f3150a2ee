/**
 * The scheduler's time: the one wake-up timer, the renewal cadence from the leases' terms, and the
 * stall watch that notices an event loop that did not run.
 */
import type { SchedulerTimers } from './renewal-scheduler-options.js';
import { spaceClaimDurationMs } from '../lease-kind.js';

/** The global timer functions, looked up at call time (so fake timers installed later apply). */
export const globalTimers: SchedulerTimers = {
  setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as Parameters<typeof globalThis.clearTimeout>[0]),
};

/** The longest delay `setTimeout` accepts (a longer wait simply wakes early and re-arms). */
const MAX_TIMER_DELAY_MS = 2_147_483_647;

/**
 * Rounds a delay DOWN to two significant digits (1,234 ms → 1,200; 297,000 → 290,000). Waking a
 * little early is harmless — the owner checks what is due and re-arms — while every distinct
 * delay costs Node a timer list that outlives the timer; jittered delays would otherwise leave
 * thousands of them. At most 90 distinct delays per decade.
 */
export function quantizeDelay(delayMs: number): number {
  if (delayMs < 100) return delayMs;
  const step = 10 ** (Math.floor(Math.log10(delayMs)) - 1);
  return Math.floor(delayMs / step) * step;
}

/**
 * ONE re-armable timer that wakes its owner at a monotonic time and says how late it fired (the
 * measure of an event-loop stall). Arming for a later time than the pending one keeps the
 * earlier wake-up: the owner re-arms after each wake. It is `unref`'d — idle renewal never keeps
 * a process alive — except while {@link WakeTimer.keepAlive} is on (someone awaits it).
 */
export class WakeTimer {
  readonly #timers: SchedulerTimers;
  readonly #now: () => number;
  readonly #onWake: (lateByMs: number) => void;
  #handle: unknown = undefined;
  #at = Infinity;
  #keepAlive = false;
  /** Callers awaiting the owner (a queued acquire waiting for its grant): the timer is ref'd meanwhile. */
  #holds = 0;

  constructor(timers: SchedulerTimers, now: () => number, onWake: (lateByMs: number) => void) {
    this.#timers = timers;
    this.#now = now;
    this.#onWake = onWake;
  }

  /** Whether a wake-up is pending. */
  get armed(): boolean {
    return this.#handle !== undefined;
  }

  /** Whether the pending (and every later) wake-up keeps the process alive (`ref`) or not (`unref`). */
  keepAlive(on: boolean): void {
    if (this.#keepAlive === on) return;
    this.#keepAlive = on;
    this.#refHandle();
  }

  /**
   * Keeps the process alive while a caller awaits what only this timer's owner will tell it (a
   * queued claim's grant), as a pending request would. Returns the function that ends the hold
   * (idempotent); the timer is `unref`'d again when the last hold ends.
   */
  hold(): () => void {
    let held = true;
    this.#holds += 1;
    this.keepAlive(true);
    return () => {
      if (!held) return;
      held = false;
      this.#holds -= 1;
      if (this.#holds === 0) this.keepAlive(false);
    };
  }

  /** Ensures a wake-up no later than `at` (monotonic ms); `Infinity` clears the timer. */
  wakeBy(at: number): void {
    if (at === Infinity) return this.clear();
    if (this.#handle !== undefined && this.#at <= at) return;
    this.clear();
    const now = this.#now();
    const delay = quantizeDelay(Math.min(MAX_TIMER_DELAY_MS, Math.ceil(Math.max(at, now) - now)));
    const target = now + delay;
    this.#at = target;
    this.#handle = this.#timers.setTimeout(() => this.#fire(target), delay);
    this.#refHandle();
  }

  #refHandle(): void {
    const handle = this.#handle as { ref?: () => void; unref?: () => void } | null | undefined;
    if (this.#keepAlive) handle?.ref?.();
    else handle?.unref?.();
  }

  /** Cancels the pending wake-up, if any. */
  clear(): void {
    if (this.#handle !== undefined) this.#timers.clearTimeout(this.#handle);
    this.#handle = undefined;
    this.#at = Infinity;
  }

  #fire(target: number): void {
    this.#handle = undefined;
    this.#at = Infinity;
    this.#onWake(this.#now() - target);
  }
}

/**
 * The renewal rhythm: a lease is renewed every third of its term, each interval scaled by a
 * jitter factor so many clients do not beat in step.
 */
export class RenewalCadence {
  readonly #ttlSeconds: number;
  readonly #jitter: number;
  readonly #random: () => number;

  constructor(ttlSeconds: number, jitter: number, random: () => number) {
    this.#ttlSeconds = ttlSeconds;
    this.#jitter = jitter;
    this.#random = random;
  }

  /** A third of `shortestTermMs` (the shortest registered lease), or of the space-claim ttl when none expires. */
  cadenceMs(shortestTermMs: number): number {
    return Number.isFinite(shortestTermMs) ? shortestTermMs / 3 : this.idleCadenceMs();
  }

  /** A third of the space-claim ttl the heartbeat asks for. */
  idleCadenceMs(): number {
    return spaceClaimDurationMs(this.#ttlSeconds) / 3;
  }

  /** A random factor in [1 − jitter, 1 + jitter]. */
  jitterFactor(): number {
    return 1 + this.#jitter * (2 * this.#random() - 1);
  }

  /** How long before its deadline a lease of `durationMs` is at risk: one (jittered) cadence. */
  atRiskLeadMs(durationMs: number): number {
    return (durationMs / 3) * (1 + this.#jitter);
  }
}

/**
 * How often, as a fraction of the stall threshold, the scheduler wakes while it holds leases, so
 * that a stall is measured from at most this long before it began.
 */
export const STALL_PROBE_FRACTION = 1 / 10;

/**
 * Measures event-loop stalls as the gap since the scheduler last saw the loop run (any timer,
 * heartbeat answer or lease call). While leases are held the scheduler wakes at least every
 * tenth of the threshold ({@link StallWatch.wakeBy}), so a gap longer than the threshold means
 * the loop was blocked: at least the gap minus a tenth of the threshold, at most the gap. Timer
 * lateness alone misses stalls that begin long before a wake-up is due, or that end after every
 * lease was already lost.
 */
export class StallWatch {
  /** When the loop was last seen running (monotonic ms); `undefined` while no lease is held. */
  #lastSeenAt: number | undefined;

  /** Starts watching at `now` (the first lease registered); a no-op while watching. */
  start(now: number): void {
    this.#lastSeenAt ??= now;
  }

  /** Stops watching (no lease left, or closed). */
  stop(): void {
    this.#lastSeenAt = undefined;
  }

  /**
   * The loop runs at `now`. Returns how long it had not run before (ms) when that is longer than
   * `thresholdMs`, else `undefined`. Each stall is returned once: the watch restarts at `now`.
   */
  seen(now: number, thresholdMs: number): number | undefined {
    const last = this.#lastSeenAt;
    if (last === undefined) return undefined;
    this.#lastSeenAt = Math.max(last, now);
    const gapMs = now - last;
    return gapMs > thresholdMs ? gapMs : undefined;
  }

  /** The latest time the scheduler must next wake for a stall to be measured (`Infinity`: not watching). */
  wakeBy(thresholdMs: number): number {
    return this.#lastSeenAt === undefined ? Infinity : this.#lastSeenAt + thresholdMs * STALL_PROBE_FRACTION;
  }
}
