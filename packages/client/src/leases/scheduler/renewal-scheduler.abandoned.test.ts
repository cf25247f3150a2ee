import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { answer, apiError, FAKE_TIMERS, held, nextTurn, setup } from '../test-kit.js';
import { ABANDONED_LEASE_WATCH_MS } from './renewal-scheduler.js';

beforeEach(() => {
  vi.useFakeTimers(FAKE_TIMERS);
});
afterEach(() => {
  vi.useRealTimers();
});

/**
 * The heartbeat names only the leases the scheduler tracks, so a lease it gave up on is no
 * longer renewed and expires at the end of its term; the scheduler still releases it as soon as
 * it can, so its key or message is free sooner.
 */
describe('leases the client gave up on', () => {
  it('are never named by the heartbeat again', async () => {
    const { heartbeat, acquire } = setup();
    const { lease: short } = acquire({}, 3_000);
    const { lease: kept } = acquire({}, 60_000);
    heartbeat.failWith(apiError(503));
    await vi.advanceTimersByTimeAsync(4_000);
    expect(short.error?.reason).toBe('deadline');
    heartbeat.reply = () => held([kept]);
    await vi.advanceTimersByTimeAsync(20_000);
    expect(heartbeat.last.body.claimIds).toEqual([kept.claimId]);
  });

  it('a lease lost to its local deadline gets ONE release at once, and one more after the next answer if that failed', async () => {
    const { scheduler, heartbeat, acquire } = setup();
    const { lease: short, backend } = acquire({}, 3_000);
    const { lease: kept } = acquire({}, 60_000);
    heartbeat.failWith(apiError(503));
    backend.releaseImpl = () => Promise.reject(apiError(503));
    await vi.advanceTimersByTimeAsync(4_000);
    expect(short.status).toBe('lost');
    expect(short.error?.reason).toBe('deadline');
    await nextTurn();
    expect(backend.releaseCalls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(4_000); // heartbeats still failing: nothing more is sent
    expect(backend.releaseCalls).toHaveLength(1);
    backend.releaseImpl = () => Promise.resolve();
    heartbeat.reply = () => held([kept]);
    await vi.advanceTimersByTimeAsync(20_000);
    await nextTurn();
    expect(backend.releaseCalls).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(40_000);
    await nextTurn();
    expect(backend.releaseCalls).toHaveLength(2);
    expect(kept.status).toBe('held');
    expect(scheduler.size).toBe(1);
  });

  it('a failed release is sent again after the next answer, until a 410 ends it', async () => {
    const { heartbeat, acquire } = setup();
    const { lease, backend } = acquire();
    const { lease: kept } = acquire();
    backend.releaseImpl = () => Promise.reject(apiError(503));
    await expect(lease.release()).rejects.toMatchObject({ status: 503 });
    expect(backend.releaseCalls).toHaveLength(1);
    heartbeat.reply = () => held([kept]);
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

  it('a release refused as gone and the watch limit end the watch; close forgets it', async () => {
    const { scheduler, heartbeat, acquire } = setup();
    const { lease: gone, backend: goneBackend } = acquire();
    const { lease: old, backend: oldBackend } = acquire();
    const { lease: kept } = acquire();
    goneBackend.releaseImpl = () => Promise.reject(apiError(409, 'claim_not_held'));
    oldBackend.releaseImpl = () => Promise.reject(apiError(503));
    await Promise.allSettled([gone.release(), old.release()]);
    heartbeat.reply = () => answer([{ claimId: kept.claimId, status: 'held' }]);
    await vi.advanceTimersByTimeAsync(10_000);
    await nextTurn();
    expect(goneBackend.releaseCalls).toHaveLength(1);
    expect(oldBackend.releaseCalls).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(10_000);
    await nextTurn();
    expect(goneBackend.releaseCalls).toHaveLength(1);
    expect(oldBackend.releaseCalls).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(ABANDONED_LEASE_WATCH_MS);
    const sent = oldBackend.releaseCalls.length;
    await vi.advanceTimersByTimeAsync(10_000);
    await nextTurn();
    expect(oldBackend.releaseCalls).toHaveLength(sent);
    await scheduler.close();
  });
});

describe('answers obtained outside the scheduler', () => {
  it('serverAnswered retries the release of an abandoned lease once', async () => {
    const { scheduler, heartbeat, acquire } = setup();
    const { lease: short, backend } = acquire({}, 3_000);
    acquire({}, 60_000);
    heartbeat.failWith(apiError(503));
    backend.releaseImpl = () => Promise.reject(apiError(503));
    await vi.advanceTimersByTimeAsync(4_000);
    expect(short.error?.reason).toBe('deadline');
    await nextTurn();
    expect(backend.releaseCalls).toHaveLength(1);
    backend.releaseImpl = () => Promise.resolve();
    scheduler.serverAnswered();
    await nextTurn();
    expect(backend.releaseCalls).toHaveLength(2);
    scheduler.serverAnswered();
    await nextTurn();
    expect(backend.releaseCalls).toHaveLength(2);
  });
});

describe('many leases', () => {
  it('names at most maxClaimIdsPerHeartbeat ids per request: 25 leases in batches of 10 are 3 requests, one logical answer', async () => {
    const { scheduler, heartbeat, acquire } = setup({ maxClaimIdsPerHeartbeat: 10 });
    const leases = Array.from({ length: 25 }, () => acquire().lease);
    heartbeat.reply = (call) => answer(call.body.claimIds.map((claimId) => ({ claimId, status: 'held' })));
    await vi.advanceTimersByTimeAsync(10_000);
    expect(heartbeat.calls.map((call) => call.body.claimIds.length)).toEqual([10, 10, 5]);
    expect(heartbeat.calls.flatMap((call) => call.body.claimIds)).toEqual(leases.map((lease) => lease.claimId));
    expect(scheduler.stats()).toMatchObject({ heartbeatsSent: 1, heartbeatsSucceeded: 1, leasesRenewed: 25 });
    // One failing batch fails the heartbeat as a whole; nothing is lost before its deadline.
    heartbeat.reply = (call) => (call.body.claimIds.length === 5 ? apiError(503) : answer(call.body.claimIds.map((claimId) => ({ claimId, status: 'held' }))));
    await vi.advanceTimersByTimeAsync(10_000);
    expect(scheduler.stats()).toMatchObject({ heartbeatsSent: 2, failures: 1 });
    expect(leases.every((lease) => lease.status === 'held')).toBe(true);
    await scheduler.close();
  });
});
