import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Lease } from '../lease.js';
import { RenewalScheduler } from './renewal-scheduler.js';
import { FAKE_TIMERS, FakeHeartbeat, setup } from '../test-kit.js';

beforeEach(() => {
  vi.useFakeTimers(FAKE_TIMERS);
});
afterEach(() => {
  vi.useRealTimers();
});

describe('one timer, one request per cadence', () => {
  it.each([1, 100, 10_000])('with %i held leases', async (count) => {
    const { scheduler, heartbeat, acquire } = setup();
    const leases: Lease[] = [];
    for (let i = 0; i < count; i += 1) leases.push(acquire().lease);
    heartbeat.answerHeld(() => leases);
    expect(vi.getTimerCount()).toBe(1);

    await vi.advanceTimersByTimeAsync(9_999);
    expect(heartbeat.calls).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(heartbeat.calls).toHaveLength(1);
    expect(heartbeat.last.body).toEqual({ ttl: 30, holderSession: 'sess_test', claimIds: leases.map((lease) => lease.claimId) });
    expect(vi.getTimerCount()).toBe(1);

    await vi.advanceTimersByTimeAsync(40_000);
    expect(heartbeat.calls).toHaveLength(5);
    expect(vi.getTimerCount()).toBe(1);
    expect(scheduler.stats()).toMatchObject({
      leases: count,
      heartbeatsSent: 5,
      heartbeatsSucceeded: 5,
      leasesRenewed: 5 * count,
      failures: 0,
    });
    expect(leases.every((lease) => !lease.signal.aborted && lease.status === 'held')).toBe(true);
    await scheduler.close();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('sends at most one heartbeat while one is in flight', async () => {
    const { heartbeat, acquire } = setup({ attemptTimeoutMs: 60_000 });
    acquire();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(heartbeat.calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(15_000); // unanswered, not timed out
    expect(heartbeat.calls).toHaveLength(1);
  });
});

describe('cadence', () => {
  it('is a third of the shortest lease and is recomputed after every answer', async () => {
    const { scheduler, heartbeat, acquire } = setup();
    const task = acquire({ kind: 'task' }, 900_000).lease;
    expect(task.durationFor(30)).toBe(900_000);
    await vi.advanceTimersByTimeAsync(1_000);
    const space = acquire({ kind: 'space' }, 30_000).lease;
    heartbeat.answerHeld(() => [task, space].filter((lease) => lease.status === 'held'));

    await vi.advanceTimersByTimeAsync(9_999); // t = 10 999
    expect(heartbeat.calls).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1); // t = 11 000: a third of the space claim's 30 s
    expect(heartbeat.calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(heartbeat.calls).toHaveLength(2);

    await space.release();
    await vi.advanceTimersByTimeAsync(10_000); // the answer before the release set t = 31 000
    expect(heartbeat.calls).toHaveLength(3);
    // Only the task claim is left: the next heartbeat is a third of 900 s after the last send.
    await vi.advanceTimersByTimeAsync(299_999);
    expect(heartbeat.calls).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(1);
    expect(heartbeat.calls).toHaveLength(4);
    expect(scheduler.size).toBe(1);
  });

  it('applies ±10 % jitter from the injected random', async () => {
    const draws = [0, 1 - Number.EPSILON];
    const { heartbeat, acquire } = setup({ random: () => draws.shift() ?? 0.5 });
    const { lease } = acquire(); // first due: 10 s × 0.9
    heartbeat.answerHeld(() => [lease]);
    await vi.advanceTimersByTimeAsync(8_999);
    expect(heartbeat.calls).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(heartbeat.calls).toHaveLength(1); // sent at 9 000; next ≈ 9 000 + 11 000
    await vi.advanceTimersByTimeAsync(10_999);
    expect(heartbeat.calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(heartbeat.calls).toHaveLength(2);
  });

  it('follows a spool queue timeout, and still heartbeats never-expiring spool leases', async () => {
    const { heartbeat, acquire } = setup();
    const short = acquire({ kind: 'spool', spoolTimeoutMs: 6_000 }, 6_000).lease;
    const forever = acquire({ kind: 'spool', spoolTimeoutMs: null }, null).lease;
    expect(forever.remainingMs).toBe(Infinity);
    heartbeat.answerHeld(() => [short, forever]);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(heartbeat.calls).toHaveLength(1);
    await short.release();
    await vi.advanceTimersByTimeAsync(2_000); // cadence from the answer before the release
    expect(heartbeat.calls).toHaveLength(2);
    // Only the never-expiring lease is left: the ttl's cadence (10 s) keeps `lost` reports coming.
    await vi.advanceTimersByTimeAsync(10_000);
    expect(heartbeat.calls).toHaveLength(3);
    heartbeat.reply = () => ({ object: 'list', results: [{ claimId: forever.claimId, status: 'lost' }] });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(forever.signal.reason).toMatchObject({ reason: 'lost' });
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('zero timers', () => {
  it('after the last release', async () => {
    const { heartbeat, acquire } = setup();
    const a = acquire().lease;
    const b = acquire().lease;
    heartbeat.answerHeld(() => [a, b]);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(vi.getTimerCount()).toBe(1);
    await a.release();
    expect(vi.getTimerCount()).toBe(1);
    await b.release();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('after the last release even with a heartbeat in flight, which is aborted', async () => {
    const { heartbeat, acquire } = setup();
    const { lease } = acquire();
    await vi.advanceTimersByTimeAsync(10_000);
    const { signal } = heartbeat.last;
    await lease.release();
    expect(signal.aborted).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('after close(), which stops renewing without aborting leases', async () => {
    const { scheduler, heartbeat, acquire } = setup();
    const { lease, backend } = acquire();
    heartbeat.answerHeld(() => [lease]);
    await vi.advanceTimersByTimeAsync(10_000);
    await scheduler.close();
    expect(vi.getTimerCount()).toBe(0);
    expect(lease.signal.aborted).toBe(false);
    expect(backend.releaseCalls).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(heartbeat.calls).toHaveLength(1);
    expect(() => scheduler.register(lease, { durationMs: 30_000, sentAt: scheduler.now() })).toThrow(/closed/);
  });

  it('after close({ releaseLeases: true }), which releases every lease', async () => {
    const { scheduler, acquire } = setup();
    const made = [acquire(), acquire(), acquire()];
    await scheduler.close({ releaseLeases: true });
    expect(vi.getTimerCount()).toBe(0);
    expect(made.map(({ backend }) => backend.releaseCalls.length)).toEqual([1, 1, 1]);
    expect(made.every(({ lease }) => lease.status === 'released')).toBe(true);
  });

  it('when nothing was ever registered', () => {
    new RenewalScheduler({ sendHeartbeat: new FakeHeartbeat().send, holderSession: 's' });
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('registration', () => {
  it('refuses a second lease object with the same claimId, and a lease of another scheduler', () => {
    const first = setup();
    const second = setup();
    const { lease } = first.acquire({ claimId: 'clm_same' });
    const twin = second.acquire({ claimId: 'clm_same' }).lease;
    expect(() => first.scheduler.register(twin, { durationMs: 30_000, sentAt: 0 })).toThrow(/already registered/);
    expect(() => second.scheduler.register(lease, { durationMs: 30_000, sentAt: 0 })).toThrow();
  });

  it('unregister stops renewing without aborting; the lease then ends at its own deadline', async () => {
    const { scheduler, heartbeat, acquire } = setup();
    const { lease } = acquire();
    expect(scheduler.unregister(lease)).toBe(true);
    expect(scheduler.unregister(lease)).toBe(false);
    expect(lease.signal.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(heartbeat.calls).toHaveLength(0);
    expect(vi.getTimerCount()).toBe(0);
    // Nothing renewed it: read after its local deadline, it reads as lost (reads check the deadline).
    expect(lease.signal.aborted).toBe(true);
    expect(lease.error?.reason).toBe('deadline');
  });
});
