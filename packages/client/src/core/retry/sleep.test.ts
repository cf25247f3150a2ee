import { describe, expect, it, vi } from 'vitest';
import { AbortError } from '../errors/connection-errors.js';
import { ManualClock, systemMonotonicClock, systemWallClock } from '../monotonic-clock.js';
import { sleep } from './sleep.js';

describe('sleep', () => {
  it('resolves after the delay (fake timers)', async () => {
    vi.useFakeTimers();
    try {
      let done = false;
      const pending = sleep(1_000).then(() => (done = true));
      await vi.advanceTimersByTimeAsync(999);
      expect(done).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      await pending;
      expect(done).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('rejects with AbortError at once when aborted, and clears its timer', async () => {
    vi.useFakeTimers();
    try {
      const controller = new AbortController();
      const pending = sleep(60_000, controller.signal);
      controller.abort(new Error('shutdown'));
      await expect(pending).rejects.toBeInstanceOf(AbortError);
      expect(vi.getTimerCount()).toBe(0);
      await expect(sleep(10, AbortSignal.abort())).rejects.toBeInstanceOf(AbortError);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('clocks', () => {
  it('the system clocks read performance.now() and Date.now()', () => {
    const a = systemMonotonicClock.now();
    expect(systemMonotonicClock.now()).toBeGreaterThanOrEqual(a);
    expect(Math.abs(systemWallClock.now() - Date.now())).toBeLessThan(1_000);
  });

  it('ManualClock moves only forward, only when told', () => {
    const clock = new ManualClock(5);
    clock.advance(10);
    expect(clock.now()).toBe(15);
    expect(() => clock.advance(-1)).toThrow(expect.objectContaining({ name: 'InvalidArgumentError', param: 'ms' }));
  });
});
