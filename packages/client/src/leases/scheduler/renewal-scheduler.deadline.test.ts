import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConnectionError } from '../../core/errors/index.js';
import type { LeaseAtRiskEvent } from '../lease-events.js';
import { answer, apiError, FAKE_TIMERS, held, setup } from '../test-kit.js';

beforeEach(() => {
  vi.useFakeTimers(FAKE_TIMERS);
});
afterEach(() => {
  vi.useRealTimers();
});

describe('local deadlines', () => {
  it('count from when the heartbeat was sent: a slow answer does not extend the lease', async () => {
    const { heartbeat, acquire } = setup();
    const { lease } = acquire(); // t = 0, 30 s
    await vi.advanceTimersByTimeAsync(10_000); // heartbeat sent at t = 10 000
    await vi.advanceTimersByTimeAsync(9_000); // answered 9 s later
    heartbeat.last.answer.resolve(held([lease]));
    heartbeat.failWith(new ConnectionError()); // then the server goes away
    await vi.advanceTimersByTimeAsync(0);
    // Deadline = send time + 30 s − 1.5 s margin = 38 500, not answer time + 28.5 s = 47 500.
    await vi.advanceTimersByTimeAsync(38_500 - 19_000 - 1);
    expect(lease.signal.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(lease.signal.reason).toMatchObject({ reason: 'deadline', claimId: lease.claimId });
    expect(lease.status).toBe('lost');
  });

  it('unreachable server: atRisk at least one cadence before, then lost (deadline) before the server expiry', async () => {
    const { scheduler, heartbeat, acquire, logger } = setup();
    const { lease } = acquire();
    const serverExpiry = 30_000; // the server counts from when it granted, after our send at t = 0
    heartbeat.failWith(new ConnectionError());
    const atRisk: Array<{ at: number } & LeaseAtRiskEvent> = [];
    let lostAt = -1;
    lease.on('atRisk', (event) => atRisk.push({ at: performance.now(), ...event }));
    lease.on('lost', () => (lostAt = performance.now()));

    await vi.advanceTimersByTimeAsync(serverExpiry);
    expect(lostAt).toBe(28_500);
    expect(lostAt).toBeLessThan(serverExpiry);
    expect(lease.signal.reason).toMatchObject({ reason: 'deadline' });
    expect(atRisk).toHaveLength(1);
    const cadence = 10_000;
    expect(lostAt - atRisk[0]!.at).toBeGreaterThanOrEqual(cadence);
    expect(atRisk[0]!.remainingMs).toBe(lostAt - atRisk[0]!.at);

    const stats = scheduler.stats();
    expect(stats.failures).toBeGreaterThan(3); // retried with backoff until the deadline
    expect(stats.retries).toBe(stats.failures - 1);
    expect(stats.lost.deadline).toBe(1);
    expect(stats.leases).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
    expect(logger.warn).toHaveBeenCalled();
  });

  it('retries with growing backoff, squeezed by the earliest deadline', async () => {
    const { heartbeat, acquire } = setup();
    acquire();
    const sentAt: number[] = [];
    heartbeat.reply = () => {
      sentAt.push(performance.now());
      return new ConnectionError();
    };
    await vi.advanceTimersByTimeAsync(28_500);
    const gaps = sentAt.slice(1).map((t, i) => t - sentAt[i]!);
    expect(sentAt[0]).toBe(10_000);
    expect(gaps.slice(0, 4)).toEqual([500, 1_000, 2_000, 4_000]);
    expect(sentAt.at(-1)).toBeLessThan(28_500);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(10_000);
  });

  it('honours retryAfterMs when the deadline allows it', async () => {
    const { heartbeat, acquire } = setup();
    const { lease } = acquire({ kind: 'task' }, 900_000);
    heartbeat.reply = () => apiError(429, 'rate_limited', 60_000);
    await vi.advanceTimersByTimeAsync(300_000);
    expect(heartbeat.calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(59_999);
    expect(heartbeat.calls).toHaveLength(1);
    heartbeat.answerHeld(() => [lease]);
    await vi.advanceTimersByTimeAsync(1);
    expect(heartbeat.calls).toHaveLength(2);
    expect(lease.status).toBe('held');
  });

  it('treats a 401 of the whole heartbeat as transient until the deadlines, logging an error', async () => {
    const { scheduler, heartbeat, acquire, logger } = setup();
    const { lease } = acquire();
    const failures: boolean[] = [];
    scheduler.on('failure', (event) => failures.push(event.transient));
    heartbeat.reply = () => apiError(401, 'invalid_api_key');
    await vi.advanceTimersByTimeAsync(20_000);
    expect(lease.status).toBe('held');
    expect(heartbeat.calls.length).toBeGreaterThan(2);
    expect(failures.every((transient) => !transient)).toBe(true);
    expect(logger.error).toHaveBeenCalledWith(expect.stringContaining('heartbeat failed'), expect.objectContaining({ status: 401 }));
    await vi.advanceTimersByTimeAsync(8_500);
    expect(lease.signal.reason).toMatchObject({ reason: 'deadline' });
  });

  it('abandons a hung heartbeat after one cadence and retries', async () => {
    const { heartbeat, acquire } = setup();
    const { lease } = acquire();
    await vi.advanceTimersByTimeAsync(10_000);
    const hung = heartbeat.last;
    await vi.advanceTimersByTimeAsync(9_999);
    expect(hung.signal.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(hung.signal.aborted).toBe(true);
    heartbeat.answerHeld(() => [lease]);
    await vi.advanceTimersByTimeAsync(500);
    expect(heartbeat.calls).toHaveLength(2);
    hung.answer.resolve(answer([{ claimId: lease.claimId, status: 'lost' }])); // too late: ignored
    await vi.advanceTimersByTimeAsync(0);
    expect(lease.status).toBe('held');
    // Renewed by the retry sent at t = 20 500.
    expect(lease.remainingMs).toBe(20_500 + 28_500 - performance.now());
  });

  it('an explicit renew resets the deadline from its own send time', async () => {
    const { heartbeat, acquire } = setup();
    const { lease, backend } = acquire();
    heartbeat.failWith(new ConnectionError());
    backend.renewImpl = () => Promise.resolve({ durationMs: 30_000 });
    await vi.advanceTimersByTimeAsync(20_000);
    await lease.renew();
    const renewedAt = performance.now();
    await vi.advanceTimersByTimeAsync(28_499);
    expect(lease.signal.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(lease.signal.reason).toMatchObject({ reason: 'deadline' });
    expect(performance.now() - renewedAt).toBe(28_500);
  });

  it('an explicit renew that says the lease is gone aborts it and counts the reason', async () => {
    const { scheduler, acquire } = setup();
    const { lease, backend } = acquire();
    backend.renewImpl = () => Promise.reject(apiError(409, 'scope_cancelled'));
    await expect(lease.renew()).rejects.toMatchObject({ reason: 'cancelled' });
    expect(lease.signal.aborted).toBe(true);
    expect(scheduler.stats().lost.cancelled).toBe(1);
    expect(scheduler.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('event-loop stalls', () => {
  function stalledClock() {
    let skew = 0;
    return { now: () => performance.now() + skew, stall: (ms: number) => (skew += ms) };
  }

  it('aborts leases whose deadline passed during the stall before reporting it or sending anything', async () => {
    const clock = stalledClock();
    const { scheduler, heartbeat, acquire, logger } = setup({ now: clock.now });
    const { lease } = acquire();
    const seen: Array<{ delayMs: number; expired: number; abortedFirst: boolean }> = [];
    scheduler.on('stall', (event) => seen.push({ ...event, abortedFirst: lease.signal.aborted }));
    clock.stall(40_000); // the loop was blocked: no timer ran
    await vi.advanceTimersByTimeAsync(10_000);
    // Measured since the loop was last seen (t = 0): the first probe, due at 1 s, ran at 41 s.
    expect(seen).toEqual([{ delayMs: 41_000, thresholdMs: 10_000, expired: 1, abortedFirst: true }]);
    expect(lease.signal.reason).toMatchObject({ reason: 'deadline' });
    expect(heartbeat.calls).toHaveLength(0);
    expect(logger.warn).toHaveBeenCalledWith(expect.stringContaining('stalled'), expect.objectContaining({ delayMs: 41_000 }));
    expect(scheduler.stats()).toMatchObject({ stalls: 1, lost: expect.objectContaining({ deadline: 1 }) });
  });

  it('reports a shorter stall and renews at once when the deadline still holds', async () => {
    const clock = stalledClock();
    const { scheduler, heartbeat, acquire } = setup({ now: clock.now });
    const { lease } = acquire();
    const stalls: number[] = [];
    scheduler.on('stall', (event) => stalls.push(event.delayMs));
    clock.stall(12_000);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(stalls).toEqual([13_000]); // at most a tenth of the threshold more than the stall

    expect(lease.status).toBe('held');
    expect(heartbeat.calls).toHaveLength(1);
  });

  it('reports a 15 s stall on a 30 s lease that begins just after a heartbeat (long before the next is due)', async () => {
    const clock = stalledClock();
    const { scheduler, heartbeat, acquire } = setup({ now: clock.now, jitter: 0 });
    const { lease } = acquire();
    heartbeat.answerHeld(() => [lease]);
    await vi.advanceTimersByTimeAsync(10_001); // the heartbeat at 10 s was answered; the next is due at 20 s
    expect(heartbeat.calls).toHaveLength(1);
    const stalls: Array<{ delayMs: number; thresholdMs: number; expired: number }> = [];
    scheduler.on('stall', (event) => stalls.push(event));
    clock.stall(15_000);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(stalls).toHaveLength(1);
    expect(stalls[0]).toMatchObject({ thresholdMs: 10_000, expired: 0 });
    expect(stalls[0]!.delayMs).toBeGreaterThanOrEqual(15_000);
    expect(stalls[0]!.delayMs).toBeLessThanOrEqual(16_000);
    expect(lease.status).toBe('held');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(stalls).toHaveLength(1); // once
  });

  it('reports a 12 s stall on a 6 s lease even when the lease is found lost first (read by the caller)', async () => {
    const clock = stalledClock();
    const { scheduler, acquire } = setup({ now: clock.now });
    const { lease } = acquire({}, 6_000);
    const stalls: Array<{ delayMs: number; thresholdMs: number; expired: number }> = [];
    scheduler.on('stall', (event) => stalls.push(event));
    await vi.advanceTimersByTimeAsync(100);
    clock.stall(12_000);
    expect(lease.status).toBe('lost'); // the caller's read comes before any timer
    expect(stalls).toEqual([{ delayMs: 12_100, thresholdMs: 2_000, expired: 1 }]); // since last seen, at 0
    expect(scheduler.size).toBe(0);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(stalls).toHaveLength(1);
  });

  it('does not report ordinary timer jitter', async () => {
    const { scheduler, heartbeat, acquire } = setup();
    const { lease } = acquire();
    heartbeat.answerHeld(() => [lease]);
    const stalls = vi.fn();
    scheduler.on('stall', stalls);
    await vi.advanceTimersByTimeAsync(100_000);
    expect(stalls).not.toHaveBeenCalled();
    expect(scheduler.stats().stalls).toBe(0);
  });
});
