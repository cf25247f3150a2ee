import { afterEach, describe, expect, it, vi } from 'vitest';
import { startTimed, stopTimed, type TimedEntry } from './attempt-timer.js';

function entry(name: string, fired: string[]): TimedEntry {
  return {
    expiresAt: Infinity,
    prevTimed: null,
    nextTimed: null,
    timed: false,
    expire() {
      fired.push(name);
    },
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('the shared attempt timer', () => {
  it('expires each entry at its own deadline, whatever the order they were added in', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const fired: string[] = [];
    const late = entry('late', fired);
    const early = entry('early', fired);
    const middle = entry('middle', fired);
    startTimed(late, 300);
    startTimed(early, 100);
    startTimed(middle, 200);
    await vi.advanceTimersByTimeAsync(99);
    expect(fired).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(fired).toEqual(['early']);
    await vi.advanceTimersByTimeAsync(100);
    expect(fired).toEqual(['early', 'middle']);
    await vi.advanceTimersByTimeAsync(100);
    expect(fired).toEqual(['early', 'middle', 'late']);
    expect([early.timed, middle.timed, late.timed]).toEqual([false, false, false]);
  });

  it('never expires an entry stopped first, and uses one timer for a run of calls', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const fired: string[] = [];
    const first = entry('first', fired);
    startTimed(first, 1_000);
    stopTimed(first);
    stopTimed(first); // a second stop is a no-op
    const armed = vi.getTimerCount();
    for (let i = 0; i < 5; i++) {
      const call = entry(`call ${i}`, fired);
      startTimed(call, 1_000);
      await vi.advanceTimersByTimeAsync(10);
      stopTimed(call);
    }
    expect(vi.getTimerCount()).toBe(armed);
    const last = entry('last', fired);
    startTimed(last, 1_000);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(fired).toEqual(['last']);
  });

  it('fires on the fake clock even when performance.now() is real, and follows a timer switch', async () => {
    const fired: string[] = [];
    const real = entry('real', fired);
    startTimed(real, 60_000); // armed on the real timers
    stopTimed(real);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const a = entry('a', fired);
    const b = entry('b', fired);
    startTimed(a, 50);
    startTimed(b, 80);
    await vi.advanceTimersByTimeAsync(50);
    expect(fired).toEqual(['a']);
    await vi.advanceTimersByTimeAsync(30);
    expect(fired).toEqual(['a', 'b']);
  });
});
