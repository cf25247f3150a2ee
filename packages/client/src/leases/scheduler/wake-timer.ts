import type { SchedulerTimers } from './renewal-scheduler-options.js';

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
