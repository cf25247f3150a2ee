import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FAKE_TIMERS, setup } from './test-kit.js';

beforeEach(() => {
  vi.useFakeTimers(FAKE_TIMERS);
});
afterEach(() => {
  vi.useRealTimers();
});

/**
 * An event-loop stall longer than the lease: the monotonic clock moves on while no timer runs.
 * Whatever runs first after the stall — a resolved promise, a setImmediate, a listener — must
 * see the lease as its deadline says, not as the scheduler's late timer will eventually find it.
 */
function stalledLease() {
  let now = 0;
  const { scheduler, acquire } = setup({ now: () => now });
  const { lease } = acquire({}, 3_000);
  const captured = lease.signal; // handed to the work before the stall
  const aborts: unknown[] = [];
  captured.addEventListener('abort', () => aborts.push(captured.reason));
  const stall = (ms: number): void => {
    now += ms; // time passes, no timer fires
  };
  return { scheduler, lease, captured, aborts, stall };
}

describe('after an event-loop stall longer than the lease, every read agrees with the deadline', () => {
  it('in code queued during the stall (a resolved promise and a setImmediate)', async () => {
    const { lease, captured, stall } = stalledLease();
    stall(10_000);
    const seen = await new Promise<unknown[]>((resolve) => {
      const reads: unknown[] = [];
      void Promise.resolve().then(() => reads.push(['microtask', captured.aborted, lease.status, lease.remainingMs]));
      setImmediate(() => {
        reads.push(['immediate', lease.signal.aborted, lease.status, lease.remainingMs]);
        resolve(reads);
      });
    });
    expect(seen).toEqual([
      ['microtask', true, 'lost', 0],
      ['immediate', true, 'lost', 0],
    ]);
    expect(lease.error?.reason).toBe('deadline');
  });

  it.each([
    ['signal.aborted', (l: ReturnType<typeof stalledLease>) => l.captured.aborted],
    ['signal.reason', (l: ReturnType<typeof stalledLease>) => l.captured.reason],
    ['signal.throwIfAborted()', (l: ReturnType<typeof stalledLease>) => { try { l.captured.throwIfAborted(); } catch { /* expected */ } }],
    ['lease.signal', (l: ReturnType<typeof stalledLease>) => l.lease.signal],
    ['lease.status', (l: ReturnType<typeof stalledLease>) => l.lease.status],
    ['lease.error', (l: ReturnType<typeof stalledLease>) => l.lease.error],
    ['lease.remainingMs', (l: ReturnType<typeof stalledLease>) => l.lease.remainingMs],
  ] as const)('reading %s first aborts the signal at once (abort listeners run, reason deadline)', (_, read) => {
    const stalled = stalledLease();
    stalled.stall(10_000);
    expect(stalled.aborts).toEqual([]);
    read(stalled);
    expect(stalled.aborts).toHaveLength(1);
    expect(stalled.aborts[0]).toMatchObject({ name: 'LeaseLostError', reason: 'deadline' });
    expect(stalled.captured.aborted).toBe(true);
    expect(() => stalled.captured.throwIfAborted()).toThrow(expect.objectContaining({ reason: 'deadline' }));
    expect(stalled.lease.status).toBe('lost');
    expect(stalled.scheduler.size).toBe(0);
  });

  it('a lease still within its deadline reads as held, and nothing changes', () => {
    const { lease, captured, aborts, stall } = stalledLease();
    stall(1_000);
    expect(captured.aborted).toBe(false);
    expect(captured.reason).toBeUndefined();
    expect(() => captured.throwIfAborted()).not.toThrow();
    expect(lease.status).toBe('held');
    expect(lease.remainingMs).toBeGreaterThan(0);
    expect(aborts).toEqual([]);
  });
});
