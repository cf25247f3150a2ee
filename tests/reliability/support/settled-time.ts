/**
 * Fake time that waits for real I/O. Under vitest fake timers an in-memory server answers
 * within microtasks, so `vi.advanceTimersByTimeAsync(ms)` sees every answer before the next
 * timer fires; a SQL store answers after real I/O (pg sockets, PGlite's wasm) that fake timers
 * know nothing of. `tickSettled` fires the timers due within a window one at a time and, before
 * each and at the end, waits until nothing is in flight — what the memory store gives for free,
 * on every store. Real time bounds each wait; nothing sleeps.
 */
import { vi } from 'vitest';

/** How long (real time) a settle waits for the answers in flight before the test fails. */
export const SETTLE_TIMEOUT_MS = 10_000;

/** Real event-loop turns in a row with nothing in flight that count as settled. */
const QUIET_TURNS = 4;

/**
 * Resolves once `inFlight()` has been 0 for a few turns of the real event loop in a row (a
 * client reacts to an answer within microtasks, so a follow-up request starts before the next
 * turn); throws after `SETTLE_TIMEOUT_MS` of real time.
 */
export async function settle(inFlight: () => number, what = 'requests'): Promise<void> {
  const started = process.hrtime.bigint();
  for (let quiet = 0; quiet < QUIET_TURNS; quiet = inFlight() === 0 ? quiet + 1 : 0) {
    if (Number(process.hrtime.bigint() - started) / 1e6 > SETTLE_TIMEOUT_MS) throw new Error(`${inFlight()} ${what} still unanswered after ${SETTLE_TIMEOUT_MS} ms`);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/**
 * Moves fake time forward by `ms`, firing the timers due on the way one at a time, and calls
 * `settled` before each timer and at the end, so a timer never fires while an answer it
 * depends on is still on its way. Needs fake `setTimeout` (a fake timer marks the window's end).
 */
export async function tickSettled(ms: number, settled: () => Promise<void>): Promise<void> {
  let reached = false;
  setTimeout(() => (reached = true), ms);
  await settled();
  while (!reached) {
    await vi.advanceTimersToNextTimerAsync();
    await settled();
  }
  // Timers due at the very end of the window and scheduled after the marker fire too.
  await vi.advanceTimersByTimeAsync(0);
  await settled();
}
