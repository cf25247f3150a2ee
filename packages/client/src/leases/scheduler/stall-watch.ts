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
