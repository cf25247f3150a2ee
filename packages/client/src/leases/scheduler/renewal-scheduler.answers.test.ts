import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { answer, FAKE_TIMERS, held, nextTurn, setup } from '../test-kit.js';

beforeEach(() => {
  vi.useFakeTimers(FAKE_TIMERS);
});
afterEach(() => {
  vi.useRealTimers();
});

describe('heartbeat answers', () => {
  it('a lost report aborts the signal within one event-loop turn', async () => {
    const { scheduler, heartbeat, acquire } = setup();
    const kept = acquire().lease;
    const { lease } = acquire();
    const lost = vi.fn();
    const beats = vi.fn();
    lease.on('lost', lost);
    scheduler.on('heartbeat', beats);
    await vi.advanceTimersByTimeAsync(10_000);
    heartbeat.last.answer.resolve(
      answer([
        { claimId: kept.claimId, status: 'held', expiresAt: 1_795_967_760_000 },
        { claimId: lease.claimId, status: 'lost' },
      ]),
    );
    await nextTurn();
    expect(lease.signal.aborted).toBe(true);
    expect(lease.signal.reason).toMatchObject({ name: 'LeaseLostError', reason: 'lost', claimId: lease.claimId });
    expect(lost).toHaveBeenCalledWith(lease.signal.reason);
    expect(lease.status).toBe('lost');
    expect(kept.expiresAt).toBe(1_795_967_760_000);
    expect(beats).toHaveBeenCalledWith({ results: 2, renewed: 1, lost: 1, roundTripMs: 0 });
    expect(scheduler.stats()).toMatchObject({ leases: 1, leasesRenewed: 1, lost: expect.objectContaining({ lost: 1 }) });
  });

  it('a lease missing from an answer that covered the whole session is lost; one registered after the send is not', async () => {
    const { scheduler, heartbeat, acquire } = setup();
    const listed = acquire().lease;
    const missing = acquire().lease;
    await vi.advanceTimersByTimeAsync(10_000);
    const late = acquire().lease; // registered while the heartbeat was in flight
    heartbeat.last.answer.resolve(held([listed]));
    await nextTurn();
    expect(missing.signal.reason).toMatchObject({ reason: 'lost' });
    expect(listed.status).toBe('held');
    expect(late.status).toBe('held');
    expect(scheduler.size).toBe(2);
  });

  it('emits renewed with the new remaining time', async () => {
    const { heartbeat, acquire } = setup();
    const { lease } = acquire();
    const renewed = vi.fn();
    lease.on('renewed', renewed);
    heartbeat.answerHeld(() => [lease]);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(renewed).toHaveBeenCalledWith({ via: 'heartbeat', durationMs: 30_000, expiresAt: null, remainingMs: 28_500 });
  });

  it('treats a malformed answer as a failure', async () => {
    const { scheduler, heartbeat, acquire } = setup();
    const { lease } = acquire();
    heartbeat.reply = () => ({ object: 'list' }) as never;
    await vi.advanceTimersByTimeAsync(10_000);
    expect(scheduler.stats().failures).toBe(1);
    expect(lease.status).toBe('held');
  });

  it('a held lease reported queued has lost its grant', async () => {
    const { heartbeat, acquire } = setup();
    const { lease } = acquire();
    heartbeat.reply = () => answer([{ claimId: lease.claimId, status: 'queued', position: 1, queueDepth: 1 }]);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(lease.signal.reason).toMatchObject({ reason: 'lost' });
  });
});

describe('release', () => {
  it('cancels renewals at once, is idempotent, and a heartbeat in flight cannot resurrect it', async () => {
    const { scheduler, heartbeat, acquire } = setup();
    const other = acquire().lease;
    const { lease, backend } = acquire();
    const renewed = vi.fn();
    lease.on('renewed', renewed);
    await vi.advanceTimersByTimeAsync(10_000);
    const inFlight = heartbeat.last;

    const first = lease.release({ rows: 12 });
    expect(scheduler.size).toBe(1);
    expect(lease.release()).toBe(first);
    await first;
    expect(backend.releaseCalls).toEqual([{ rows: 12 }]);

    inFlight.answer.resolve(held([other, lease]));
    await nextTurn();
    expect(lease.status).toBe('released');
    expect(lease.signal.reason).toMatchObject({ reason: 'released' });
    expect(renewed).not.toHaveBeenCalled();
    expect(scheduler.stats().leasesRenewed).toBe(1);
  });

  it('of a lease already lost does not call the server', async () => {
    const { heartbeat, acquire } = setup();
    const { lease, backend } = acquire();
    heartbeat.reply = () => answer([{ claimId: lease.claimId, status: 'lost' }]);
    await vi.advanceTimersByTimeAsync(10_000);
    await lease.release();
    expect(backend.releaseCalls).toHaveLength(0);
    expect(lease.status).toBe('lost');
  });
});

describe('queued space claims', () => {
  it('keep their place, expose position and queueDepth, then are granted', async () => {
    const { scheduler, heartbeat, acquire } = setup();
    const { lease } = acquire({ status: 'queued', fence: null, position: 3, queueDepth: 3 });
    const queued = vi.fn();
    const granted = vi.fn();
    lease.on('queued', queued);
    lease.on('granted', granted);

    heartbeat.reply = () => answer([{ claimId: lease.claimId, status: 'queued', position: 1, queueDepth: 2, expiresAt: 5 }]);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(lease.status).toBe('queued');
    expect([lease.position, lease.queueDepth, lease.expiresAt]).toEqual([1, 2, 5]);
    expect(queued).toHaveBeenCalledWith({ position: 1, queueDepth: 2 });
    expect(granted).not.toHaveBeenCalled();

    heartbeat.reply = () => answer([{ claimId: lease.claimId, status: 'held', expiresAt: 9, queueDepth: 0 }]);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(granted).toHaveBeenCalledWith({ expiresAt: 9 });
    expect(lease.status).toBe('held');
    expect(lease.position).toBeUndefined();
    expect(lease.fence).toBeNull(); // the caller reads the key, then:
    lease.updateFence(44);
    expect(lease.fence).toBe(44);
    expect(scheduler.stats().leasesRenewed).toBe(2);
  });

  it('lose their place at the local deadline when heartbeats stop landing', async () => {
    const { heartbeat, acquire } = setup();
    const { lease } = acquire({ status: 'queued', fence: null });
    heartbeat.reply = () => new Error('offline');
    await vi.advanceTimersByTimeAsync(28_500);
    expect(lease.signal.reason).toMatchObject({ reason: 'deadline' });
  });
});
