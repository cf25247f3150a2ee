import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { answer, apiError, FAKE_TIMERS, held, nextTurn, setup } from './test-kit.js';
import { ABANDONED_LEASE_WATCH_MS } from './renewal-scheduler.js';

beforeEach(() => {
  vi.useFakeTimers(FAKE_TIMERS);
});
afterEach(() => {
  vi.useRealTimers();
});

/**
 * The batch heartbeat renews every lease of the session on the server, also the ones this
 * client gave up on: the scheduler releases those once an answer still lists them.
 */
describe('leases the client gave up on', () => {
  it('a lease lost to its local deadline gets ONE release when an answer still lists it held', async () => {
    const { scheduler, heartbeat, acquire } = setup();
    const { lease: short, backend } = acquire({}, 3_000);
    const { lease: kept } = acquire({}, 60_000);
    heartbeat.failWith(apiError(503));
    await vi.advanceTimersByTimeAsync(4_000);
    expect(short.status).toBe('lost');
    expect(short.error?.reason).toBe('deadline');
    expect(backend.releaseCalls).toHaveLength(0); // the caller-facing loss sends nothing
    heartbeat.reply = () => held([short, kept]);
    await vi.advanceTimersByTimeAsync(20_000);
    await nextTurn();
    expect(backend.releaseCalls).toHaveLength(1);
    expect(kept.status).toBe('held');
    expect(scheduler.size).toBe(1);
  });

  it('a failed release is sent again at the next answer listing the lease, until a 410 ends it', async () => {
    const { heartbeat, acquire } = setup();
    const { lease, backend } = acquire();
    const { lease: kept } = acquire();
    backend.releaseImpl = () => Promise.reject(apiError(503));
    await expect(lease.release()).rejects.toMatchObject({ status: 503 });
    expect(backend.releaseCalls).toHaveLength(1);
    heartbeat.reply = () => held([lease, kept]);
    await vi.advanceTimersByTimeAsync(10_000);
    await nextTurn();
    expect(backend.releaseCalls).toHaveLength(2);
    backend.releaseImpl = () => Promise.reject(apiError(410, 'stale_token'));
    await vi.advanceTimersByTimeAsync(10_000);
    await nextTurn();
    expect(backend.releaseCalls).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(30_000);
    await nextTurn();
    expect(backend.releaseCalls).toHaveLength(3);
  });

  it('a release refused as gone, a lost ack and the watch limit end the watch; close forgets it', async () => {
    const { scheduler, heartbeat, acquire } = setup();
    const { lease: gone, backend: goneBackend } = acquire();
    const { lease: lostAck, backend: lostBackend } = acquire();
    const { lease: old, backend: oldBackend } = acquire();
    const { lease: kept } = acquire();
    goneBackend.releaseImpl = () => Promise.reject(apiError(409, 'claim_not_held'));
    lostBackend.releaseImpl = () => Promise.reject(apiError(503));
    oldBackend.releaseImpl = () => Promise.reject(apiError(503));
    await Promise.allSettled([gone.release(), lostAck.release(), old.release()]);
    heartbeat.reply = () =>
      answer([
        { claimId: gone.claimId, status: 'held' },
        { claimId: lostAck.claimId, status: 'lost' },
        { claimId: kept.claimId, status: 'held' },
      ]);
    await vi.advanceTimersByTimeAsync(10_000);
    await nextTurn();
    expect(goneBackend.releaseCalls).toHaveLength(1);
    expect(lostBackend.releaseCalls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(ABANDONED_LEASE_WATCH_MS);
    heartbeat.reply = () => held([old, kept]);
    await vi.advanceTimersByTimeAsync(10_000);
    await nextTurn();
    expect(oldBackend.releaseCalls).toHaveLength(1);
    await scheduler.close();
  });
});

describe('answers obtained outside the scheduler', () => {
  it('releaseAbandonedIn releases an abandoned lease that a raw heartbeat answer lists held', async () => {
    const { scheduler, heartbeat, acquire } = setup();
    const { lease: short, backend } = acquire({}, 3_000);
    acquire({}, 60_000);
    heartbeat.failWith(apiError(503));
    await vi.advanceTimersByTimeAsync(4_000);
    expect(short.error?.reason).toBe('deadline');
    scheduler.releaseAbandonedIn([{ claimId: short.claimId, status: 'held', expiresAt: 0 }]);
    await nextTurn();
    expect(backend.releaseCalls).toHaveLength(1);
    scheduler.releaseAbandonedIn([{ claimId: short.claimId, status: 'held', expiresAt: 0 }]);
    await nextTurn();
    expect(backend.releaseCalls).toHaveLength(1);
  });
});
