import { InvalidArgumentError } from './errors/invalid-argument-error.js';
/** A clock that never jumps: milliseconds since an arbitrary origin, only differences matter. */
export interface MonotonicClock {
  /** Milliseconds since the clock's origin; never decreases. */
  now(): number;
}

/** A wall clock for `Date` math (HTTP-date headers, expiries persisted across restarts). */
export interface WallClock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

/** The process's monotonic clock, `performance.now()`. */
export const systemMonotonicClock: MonotonicClock = { now: () => performance.now() };

/** The system wall clock, `Date.now()`. */
export const systemWallClock: WallClock = { now: () => Date.now() };

/**
 * A hand-driven clock for tests: serves as either kind of clock and moves only when told.
 * @example
 * const clock = new ManualClock(1_000);
 * clock.advance(250); // clock.now() === 1_250
 */
export class ManualClock implements MonotonicClock, WallClock {
  #now: number;

  constructor(start = 0) {
    this.#now = start;
  }

  /** The current reading. */
  now(): number {
    return this.#now;
  }

  /** Moves the clock forward by `ms` (never backwards). */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new InvalidArgumentError('ms', `A monotonic clock only moves forward; got ${String(ms)}.`);
    this.#now += ms;
  }
}
