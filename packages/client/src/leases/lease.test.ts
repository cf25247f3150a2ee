import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LeaseLostError } from '../core/errors/index.js';
import { apiError, deferred, FAKE_TIMERS, makeLease, setup } from './test-kit.js';

beforeEach(() => {
  vi.useFakeTimers(FAKE_TIMERS);
});
afterEach(() => {
  vi.useRealTimers();
});

describe('Lease.renew', () => {
  it.each([
    { given: apiError(409, 'scope_cancelled'), want: 'cancelled' },
    { given: apiError(409, 'claim_not_held'), want: 'lost' },
    { given: apiError(410, 'stale_token'), want: 'stale' },
    { given: apiError(409, 'lease_expired'), want: 'expired' },
  ])('aborts the signal before rejecting on $given.message', async ({ given, want }) => {
    const { lease, backend } = makeLease();
    backend.renewImpl = () => Promise.reject(given);
    const lost = vi.fn();
    lease.on('lost', lost);
    const error = await lease.renew().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(LeaseLostError);
    expect(error).toMatchObject({ reason: want, claimId: lease.claimId, cause: given });
    expect(lease.signal.aborted).toBe(true);
    expect(lease.signal.reason).toBe(error);
    expect(lease.status).toBe('lost');
    expect(lost).toHaveBeenCalledWith(error);
  });

  it('rethrows errors that say nothing about the lease and stays held', async () => {
    const { lease, backend } = makeLease();
    const outage = apiError(503);
    backend.renewImpl = () => Promise.reject(outage);
    await expect(lease.renew()).rejects.toBe(outage);
    expect(lease.signal.aborted).toBe(false);
    expect(lease.status).toBe('held');
  });

  it('keeps a queued claim queued when renew answers 409 claim_queued', async () => {
    const { lease, backend } = makeLease({ status: 'queued', fence: null });
    backend.renewImpl = () => Promise.reject(apiError(409, 'claim_queued'));
    await expect(lease.renew()).rejects.toMatchObject({ status: 409, code: 'claim_queued' });
    expect(lease.status).toBe('queued');
    expect(lease.signal.aborted).toBe(false);
  });

  it('resets the local deadline from the send time and emits renewed', async () => {
    const { lease, backend } = makeLease();
    const pending = deferred<{ durationMs: number; expiresAt: number }>();
    backend.renewImpl = () => pending.promise;
    const renewed = vi.fn();
    lease.on('renewed', renewed);
    const sentAt = performance.now();
    const renewal = lease.renew();
    vi.advanceTimersByTime(4_000); // a slow answer
    pending.resolve({ durationMs: 30_000, expiresAt: 1_795_967_760_000 });
    await renewal;
    expect(lease.expiresAt).toBe(1_795_967_760_000);
    expect(lease.remainingMs).toBe(sentAt + 30_000 - 1_500 - performance.now());
    expect(renewed).toHaveBeenCalledWith(expect.objectContaining({ via: 'renew', durationMs: 30_000 }));
  });

  it('refuses after release, and a success landing after release does not resurrect the lease', async () => {
    const { lease, backend } = makeLease();
    const pending = deferred<{ durationMs: number }>();
    backend.renewImpl = () => pending.promise;
    const renewal = lease.renew();
    await lease.release();
    pending.resolve({ durationMs: 30_000 });
    await expect(renewal).rejects.toMatchObject({ reason: 'released' });
    expect(lease.status).toBe('released');
    await expect(lease.renew()).rejects.toMatchObject({ reason: 'released' });
  });
});

describe('Lease.reportError', () => {
  it('aborts the lease when a guarded write says it is gone, and only then', () => {
    const { lease } = makeLease();
    expect(lease.reportError(apiError(503))).toBe(false);
    expect(lease.signal.aborted).toBe(false);
    expect(lease.reportError(apiError(410, 'stale_token'))).toBe(true);
    expect(lease.signal.reason).toMatchObject({ reason: 'stale' });
    expect(lease.reportError(apiError(409, 'scope_cancelled'))).toBe(false);
  });
});

describe('Lease.release', () => {
  it('is idempotent: the same promise, one server call, the observation passed on', async () => {
    const { lease, backend } = makeLease();
    const first = lease.release({ done: 3 });
    const second = lease.release({ done: 4 });
    expect(second).toBe(first);
    await first;
    expect(backend.releaseCalls).toEqual([{ done: 3 }]);
    expect(lease.status).toBe('released');
    expect(lease.signal.reason).toMatchObject({ reason: 'released' });
  });

  it('does not call the server once the lease is known lost', async () => {
    const { lease, backend } = makeLease();
    backend.renewImpl = () => Promise.reject(apiError(410, 'stale_token'));
    await expect(lease.renew()).rejects.toBeInstanceOf(LeaseLostError);
    await lease.release();
    expect(backend.releaseCalls).toHaveLength(0);
    expect(lease.status).toBe('lost');
  });

  it('returns the same rejected promise when the server call fails', async () => {
    const { lease, backend } = makeLease();
    const failure = apiError(503);
    backend.releaseImpl = () => Promise.reject(failure);
    const first = lease.release();
    await expect(first).rejects.toBe(failure);
    expect(lease.release()).toBe(first);
    expect(backend.releaseCalls).toHaveLength(1);
  });

  it('releases on Symbol.asyncDispose', async () => {
    const { lease, backend } = makeLease();
    await lease[Symbol.asyncDispose]();
    expect(backend.releaseCalls).toHaveLength(1);
  });

  it('tolerates an abort listener that releases again', async () => {
    const { lease, backend } = makeLease();
    lease.signal.addEventListener('abort', () => void lease.release());
    await lease.release();
    expect(backend.releaseCalls).toHaveLength(1);
  });
});

describe('Lease state', () => {
  it('never shows its token in JSON', () => {
    const { lease } = makeLease();
    expect(lease.token).toMatch(/^lht_/);
    expect(JSON.stringify(lease)).not.toContain(lease.token);
  });

  it('keeps the fence monotonic', () => {
    const { lease } = makeLease({ fence: null, status: 'queued' });
    expect(lease.fence).toBeNull();
    lease.updateFence(43);
    lease.updateFence(42);
    expect(lease.fence).toBe(43);
  });

  it('takes the spool timeout from the latest explicit renew', async () => {
    const { lease, backend } = makeLease({ kind: 'spool', spoolTimeoutMs: 60_000 });
    expect(lease.durationFor(30)).toBe(60_000);
    backend.renewImpl = () => Promise.resolve({ durationMs: null });
    await lease.renew();
    expect(lease.durationFor(30)).toBeNull();
    expect(lease.remainingMs).toBe(Infinity);
    expect(lease.expiresAt).toBeNull();
  });

  it('throwIfLost checks the local deadline now, without waiting for a timer', async () => {
    const { lease } = makeLease();
    await lease.renew(); // 30 s granted, deadline 28.5 s after the send
    vi.setSystemTime(Date.now()); // Date is irrelevant: only the monotonic clock counts
    vi.advanceTimersByTime(28_499);
    expect(() => lease.throwIfLost()).not.toThrow();
    vi.advanceTimersByTime(1);
    expect(() => lease.throwIfLost()).toThrow(expect.objectContaining({ reason: 'deadline' }) as Error);
    expect(lease.signal.aborted).toBe(true);
  });
});

describe('Lease signal and loss reactions', () => {
  it('a signal first read after the loss is already aborted, with the loss as reason', () => {
    const { lease } = makeLease();
    lease.reportError(apiError(410, 'stale_token'));
    expect(lease.signal.aborted).toBe(true);
    expect(lease.signal.reason).toBe(lease.error);
    expect(lease.signal).toBe(lease.signal);
  });

  it('a signal read before the loss aborts at the loss; one first read after a release carries the release', async () => {
    const { lease } = makeLease();
    const signal = lease.signal;
    const seen: unknown[] = [];
    signal.addEventListener('abort', () => seen.push(signal.reason));
    lease.reportError(apiError(409, 'claim_not_held'));
    expect(seen).toEqual([lease.error]);
    const { lease: released } = makeLease();
    await released.release();
    expect(released.signal.reason).toMatchObject({ reason: 'released' });
  });

  it('the backend hears a loss (never a release) after the signal aborted and before the lost listeners', async () => {
    const order: string[] = [];
    const listenerErrors: unknown[] = [];
    const { lease, backend } = makeLease({ onListenerError: (error) => listenerErrors.push(error) });
    const lost = vi.fn((error: LeaseLostError) => {
      order.push(`backend ${error.reason} aborted=${lease.signal.aborted}`);
      throw new Error('backend hook failed');
    });
    Object.assign(backend, { lost });
    lease.signal.addEventListener('abort', () => order.push('signal'));
    lease.on('lost', () => order.push('listener'));
    lease.reportError(apiError(409, 'scope_cancelled'));
    expect(order).toEqual(['signal', 'backend cancelled aborted=true', 'listener']);
    expect(listenerErrors).toEqual([new Error('backend hook failed')]);
    const { lease: other, backend: otherBackend } = makeLease();
    const notLost = vi.fn();
    Object.assign(otherBackend, { lost: notLost });
    await other.release();
    expect(notLost).not.toHaveBeenCalled();
  });

  it('events reach subscribers added at any time, and only them', async () => {
    const { lease } = makeLease();
    await lease.renew(); // nobody listens: nothing is built or emitted
    const renewed = vi.fn();
    const off = lease.on('renewed', renewed);
    await lease.renew();
    expect(renewed).toHaveBeenCalledTimes(1);
    expect(renewed.mock.calls[0]?.[0]).toMatchObject({ via: 'renew', durationMs: 30_000 });
    off();
    await lease.renew();
    expect(renewed).toHaveBeenCalledTimes(1);
  });
});

describe('spool leases without an explicit timeout', () => {
  it('take the heartbeat duration from the duration they were registered with', () => {
    const { acquire } = setup();
    const { lease } = acquire({ kind: 'spool' }, 45_000);
    expect(lease.durationFor(30)).toBe(45_000);
  });
});
