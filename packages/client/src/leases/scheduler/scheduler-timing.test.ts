import { describe, expect, it, vi } from 'vitest';
import { WakeTimer, quantizeDelay } from './scheduler-timing.js';

function fakeTimers() {
  let clock = 0;
  const pending = new Map<number, { at: number; callback: () => void; unref: () => void }>();
  let nextId = 0;
  return {
    now: () => clock,
    pending,
    timers: {
      setTimeout(callback: () => void, ms: number) {
        const handle = { id: (nextId += 1), unref: vi.fn() };
        pending.set(handle.id, { at: clock + ms, callback, unref: handle.unref });
        return handle;
      },
      clearTimeout(handle: unknown) {
        pending.delete((handle as { id: number }).id);
      },
    },
    /** Jumps the clock without running timers (a stall), then runs the due ones. */
    jump(ms: number) {
      clock += ms;
      for (const [id, timer] of [...pending]) {
        if (timer.at <= clock) {
          pending.delete(id);
          timer.callback();
        }
      }
    },
  };
}

describe('WakeTimer', () => {
  it('keeps one unref’d timer, the earliest asked for, and reports lateness', () => {
    const fake = fakeTimers();
    const wakes: number[] = [];
    const timer = new WakeTimer(fake.timers, fake.now, (late) => wakes.push(late));
    timer.wakeBy(1_000);
    timer.wakeBy(5_000); // later: the pending earlier wake-up stays
    expect(fake.pending.size).toBe(1);
    expect([...fake.pending.values()][0]!.unref).toHaveBeenCalled();
    timer.wakeBy(500); // earlier: re-armed
    expect(fake.pending.size).toBe(1);
    fake.jump(2_500);
    expect(wakes).toEqual([2_000]);
    expect(timer.armed).toBe(false);
  });

  it('clears on Infinity', () => {
    const fake = fakeTimers();
    const timer = new WakeTimer(fake.timers, fake.now, () => undefined);
    timer.wakeBy(10);
    timer.wakeBy(Infinity);
    expect(fake.pending.size).toBe(0);
  });
});

describe('quantizeDelay', () => {
  it.each([
    [0, 0],
    [99, 99],
    [105, 100],
    [999, 990],
    [1_049, 1_000],
    [9_999, 9_900],
    [297_123, 290_000],
  ])('%i ms → %i ms (never later, few distinct values)', (delay, expected) => {
    expect(quantizeDelay(delay)).toBe(expected);
  });

  it('leaves at most 90 distinct delays per decade, e.g. a task claim cadence of 5 min ± 10%', () => {
    const seen = new Set<number>();
    for (let delay = 1_000; delay < 10_000; delay += 7) seen.add(quantizeDelay(delay));
    expect(seen.size).toBeLessThanOrEqual(90);
    const taskCadences = new Set<number>();
    for (let delay = 270_000; delay <= 330_000; delay += 13) taskCadences.add(quantizeDelay(delay));
    expect(taskCadences.size).toBeLessThanOrEqual(7);
  });
});
