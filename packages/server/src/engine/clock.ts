/** A source of the current time in epoch milliseconds; the engine reads time only through it. */
export interface Clock {
  /** The current time in epoch milliseconds. */
  now(): number;
}

/** The wall clock (`Date.now()`), for a server that runs in real time. */
export class RealClock implements Clock {
  /** The current wall-clock time in epoch milliseconds. */
  now(): number {
    return Date.now();
  }
}

/**
 * A clock that moves only when told to, for tests and the reference server's manual mode.
 * @example
 * const clock = new ManualClock(Date.UTC(2026, 10, 29));
 * clock.advance(31_000);
 */
export class ManualClock implements Clock {
  #now: number;

  /** Start the clock at `start` epoch milliseconds (default 2026-01-01T00:00:00Z). */
  constructor(start: number = Date.UTC(2026, 0, 1)) {
    this.#now = checkTime(start);
  }

  /** The clock's current time in epoch milliseconds. */
  now(): number {
    return this.#now;
  }

  /** Move the clock forward by `ms` milliseconds (never backwards). */
  advance(ms: number): number {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError('ManualClock.advance needs a finite, non-negative ms');
    this.#now += ms;
    return this.#now;
  }

  /** Set the clock to `ms`; a manual clock may be set backwards only explicitly, here. */
  set(ms: number): number {
    this.#now = checkTime(ms);
    return this.#now;
  }
}

function checkTime(ms: number): number {
  if (!Number.isFinite(ms) || ms < 0) throw new RangeError('A clock time must be a finite, non-negative epoch ms');
  return ms;
}

/**
 * Format epoch milliseconds as an RFC 3339 UTC timestamp in whole seconds
 * (`2026-11-29T15:15:00Z`, as the task page shows them), rounded down: an expiry shown this way
 * is never later than the real one, so a client that trusts it stops in time.
 */
export function toUtc(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}
