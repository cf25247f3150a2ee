import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConflictError, LeaseLostError, NotFoundError, SpaceLease, type Leasehold } from '../../packages/client/src/index.js';
import { advance, FAKE_TIMERS, MODES, startHarness, uuid, type Harness } from './harness.js';

describe.each(MODES)('space claims (%s)', (mode) => {
  let h: Harness;
  let lh: Leasehold;
  let spaceId: string;
  let runId: string;

  beforeEach(async () => {
    h = await startHarness(mode);
    vi.useFakeTimers(FAKE_TIMERS);
    lh = h.client();
    spaceId = uuid();
    runId = uuid();
  });

  afterEach(async () => {
    vi.useRealTimers();
    await h.close();
  });

  const run = (client: Leasehold = lh, holder = 'worker-1') => client.space(spaceId).run(runId, { holder });

  it("decodes the server's superset error body into one typed error: code, message, request id and doc_url", async () => {
    await run().claim('k').tryAcquire();
    const error = await lh.space(spaceId).claims.get('free-key').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    const notFound = error as NotFoundError;
    expect(notFound).toMatchObject({ status: 404, type: 'not_found_error', code: 'claim_not_found', param: 'key' });
    expect(notFound.requestId).toBe(notFound.headers['request-id']);
    const body = JSON.parse(notFound.rawBody) as { kind: string; error: { code: string; requestId: string } };
    expect([body.kind, body.error.code, body.error.requestId]).toEqual(['claim_not_found', 'claim_not_found', notFound.requestId]);
    expect(notFound.docUrl).toMatch(/^http:\/\/[^/]+\/docs#section\/claim_not_found$/);
  });

  it('tryAcquire takes a free key with a fence, recording the session; null when held by someone else', async () => {
    const lease = await run().claim('reports/2026-11').tryAcquire();
    expect(lease).toBeInstanceOf(SpaceLease);
    expect(lease).toMatchObject({ key: 'reports/2026-11', spaceId, runId, status: 'held', kind: 'space', replayed: false });
    expect(lease?.fence).toBeGreaterThan(0);
    expect(h.requests('/claims', 'POST')[0]?.body).toMatchObject({ holderSession: lh.session, scopeId: runId, wait: false, leaseSeconds: 30 });
    expect(h.requests('/claims', 'POST')[0]?.headers['idempotency-key']).toMatch(/.+/);

    const other = h.client();
    expect(await run(other, 'worker-2').claim('reports/2026-11').tryAcquire()).toBeNull();
    await lease?.release();
    const second = await run(other, 'worker-2').claim('reports/2026-11').tryAcquire();
    expect(second?.fence).toBeGreaterThan(lease?.fence ?? Infinity);
  });

  it('get reads the holder (no token) and 404s a free key', async () => {
    const lease = await run().claim('a/b').acquire();
    const row = await lh.space(spaceId).claims.get('a/b');
    expect(row).toMatchObject({ claimId: lease.claimId, key: 'a/b', holder: 'worker-1', holderSession: lh.session, fence: lease.fence });
    expect(row).not.toHaveProperty('token');
    await lease.release();
    await expect(lh.space(spaceId).claims.get('a/b')).rejects.toMatchObject({ name: 'NotFoundError', code: 'claim_not_found' });
    await expect(lh.space(spaceId).claims.get('a/b')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('run returns fn’s value and releases; releases on throw and rethrows', async () => {
    const claim = run().claim('job');
    const value = await claim.run(async (lease) => {
      expect(lease.status).toBe('held');
      expect(lease.signal.aborted).toBe(false);
      return { rows: 42, fence: lease.fence };
    });
    expect(value.rows).toBe(42);
    expect(h.requests('/release', 'POST')).toHaveLength(1);
    await expect(lh.space(spaceId).claims.get('job')).rejects.toBeInstanceOf(NotFoundError);

    let seenLease: SpaceLease | undefined;
    const boom = new Error('boom');
    await expect(
      claim.run((lease) => {
        seenLease = lease;
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect(seenLease?.status).toBe('released');
    expect(seenLease?.signal.reason).toMatchObject({ name: 'LeaseLostError', reason: 'released' });
    expect(h.requests('/release', 'POST')).toHaveLength(2);
    await expect(lh.space(spaceId).claims.get('job')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('acquire waits its turn in the FIFO queue, kept by heartbeats, until the holder releases', async () => {
    const holder = await run().claim('k').acquire();
    const waiterClient = h.client();
    const laterClient = h.client();
    const waiter = run(waiterClient, 'waiter').claim('k').acquire();
    await h.settle();
    const later = run(laterClient, 'later').claim('k').acquire();
    await h.settle();
    const granted = vi.fn();
    void waiter.then(granted);

    // 40 s of heartbeats: both waiters keep their places (their 30 s place would otherwise lapse).
    await advance(h, 40_000);
    expect(granted).not.toHaveBeenCalled();
    expect(h.requests('/claims/heartbeat').length).toBeGreaterThanOrEqual(3);
    expect(h.requests('/claims', 'POST').map((r) => (r.body as { holder: string }).holder)).toEqual(['worker-1', 'waiter', 'later']);

    await holder.release();
    await advance(h, 10_000);
    const lease = await waiter;
    expect(lease.status).toBe('held');
    expect(lease.fence).toBeGreaterThan(holder.fence ?? Infinity);
    expect((await lh.space(spaceId).claims.get('k')).claimId).toBe(lease.claimId);

    await lease.release();
    await advance(h, 10_000);
    const third = await later;
    expect(third.fence).toBeGreaterThan(lease.fence ?? Infinity);
    await third.release();
  });

  it('aborting a queued acquire leaves the queue', async () => {
    const holder = await run().claim('k').acquire();
    const controller = new AbortController();
    const waiting = run(h.client(), 'waiter').claim('k').acquire({ signal: controller.signal });
    await h.settle();
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
    await h.settle();
    expect(h.requests('/release', 'POST')).toHaveLength(1);
    expect((await lh.space(spaceId).claims.get('k')).queueDepth).toBe(0);
    await holder.release();
  });

  it('list iterates every page with for await, and await gives one page', async () => {
    const keys = Array.from({ length: 7 }, (_, i) => `reports/${String(i).padStart(2, '0')}`);
    for (const key of keys) await run().claim(key).acquire();
    await run().claim('zzz/other').acquire();

    const seenKeys: string[] = [];
    for await (const claim of lh.space(spaceId).claims.list({ prefix: 'reports/', limit: 3 })) seenKeys.push(claim.key);
    expect(seenKeys).toEqual(keys);
    expect(h.requests('/claims', 'GET')).toHaveLength(3);

    const page = await lh.space(spaceId).claims.list({ prefix: 'reports/', limit: 3 });
    expect(page.data.map((c) => c.key)).toEqual(keys.slice(0, 3));
    expect(page.hasNextPage()).toBe(true);
    const next = await page.getNextPage();
    expect(next.data.map((c) => c.key)).toEqual(keys.slice(3, 6));
    const pages: number[] = [];
    for await (const p of page.iterPages()) pages.push(p.data.length);
    expect(pages).toEqual([3, 3, 1]);
  });

  it('cancelRun aborts the run’s leases with reason cancelled and sends one cleanup release each', async () => {
    const a = await run().claim('a').acquire();
    const b = await run().claim('b').acquire();
    const otherRun = await lh.space(spaceId).run(uuid(), { holder: 'x' }).claim('c').acquire();
    const result = await lh.space(spaceId).cancelRun(runId);
    expect(result).toMatchObject({ cancelled: true, claimsLost: 2 });
    expect(a.signal.aborted).toBe(true);
    expect(a.signal.reason).toBeInstanceOf(LeaseLostError);
    expect(a.signal.reason).toMatchObject({ reason: 'cancelled', claimId: a.claimId });
    expect(b.error?.reason).toBe('cancelled');
    expect(otherRun.status).toBe('held');
    await h.settle();
    const releases = h.requests('/release', 'POST');
    expect(releases).toHaveLength(2);
    expect(releases.map((r) => (r.body as { token: string }).token).sort()).toEqual([a.token, b.token].sort());
    await a.release(); // already lost: nothing more is sent
    expect(h.requests('/release', 'POST')).toHaveLength(2);
    await expect(run().claim('d').tryAcquire()).rejects.toMatchObject({ name: 'ConflictError', code: 'scope_cancelled' });
  });

  it('run() rejects with LeaseLostError when the run is cancelled mid-work', async () => {
    const work = run().claim('long').run(async (lease) => {
      await new Promise((resolve) => lease.signal.addEventListener('abort', resolve));
      return 'late';
    });
    await h.settle();
    await lh.space(spaceId).cancelRun(runId);
    await expect(work).rejects.toMatchObject({ name: 'LeaseLostError', reason: 'cancelled' });
  });

  it('a lease the server reports lost in a heartbeat aborts with reason lost', async () => {
    const lease = await run().claim('k').acquire();
    const kept = await run().claim('k2').acquire();
    expect(h.server.control.loseLease(lease.claimId)).toBe(1);
    await advance(h, 10_000);
    expect(lease.signal.aborted).toBe(true);
    expect(lease.signal.reason).toMatchObject({ name: 'LeaseLostError', reason: 'lost' });
    expect(kept.status).toBe('held');
    await lease.release();
    expect(h.requests('/release', 'POST')).toHaveLength(0);
  });

  it('renews N held leases with exactly one heartbeat request per cadence', async () => {
    const leases = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((key) => run().claim(key).acquire()));
    const beats = vi.fn();
    lh.on('heartbeat', beats);
    await advance(h, 10_000);
    expect(h.requests('/claims/heartbeat')).toHaveLength(1);
    await advance(h, 20_000);
    expect(h.requests('/claims/heartbeat')).toHaveLength(3);
    const body = h.requests('/claims/heartbeat')[0]?.body;
    expect(body).toEqual({ ttl: 30, holderSession: lh.session, claimIds: leases.map((lease) => lease.claimId) });
    expect(beats).toHaveBeenLastCalledWith(expect.objectContaining({ results: 5, renewed: 5, lost: 0 }));
    // Past the original 30 s lease, every claim is still held on the server.
    for (const lease of leases) expect((await lh.space(spaceId).claims.get(lease.key)).claimId).toBe(lease.claimId);
    expect(lh.stats()).toMatchObject({ leases: 5, heartbeatsSent: 3, leasesRenewed: 15 });
  });

  it('signals loss before the server-side expiry when the server is unreachable', async () => {
    const lease = await run().claim('k').acquire();
    h.down = true;
    await advance(h, 28_000);
    expect(lease.signal.aborted).toBe(false);
    expect(lease.remainingMs).toBeGreaterThan(0);
    await advance(h, 1_000);
    // The local deadline (30 s from the send, less the drift margin) passed at 28.5 s ...
    expect(lease.signal.reason).toMatchObject({ name: 'LeaseLostError', reason: 'deadline' });
    h.down = false;
    // ... while the server still holds the claim until 30 s.
    expect((await lh.space(spaceId).claims.get('k')).claimId).toBe(lease.claimId);
    expect(h.requests('/claims/heartbeat').length).toBeGreaterThan(1);
  });

  it('a replayed acquire (same idempotency key) returns the same lease object', async () => {
    const first = await run().claim('k').acquire({ idempotencyKey: 'acquire-k-1' });
    const again = await run().claim('k').acquire({ idempotencyKey: 'acquire-k-1' });
    expect(again).toBe(first);
    const other = await run().claim('k').tryAcquire();
    expect(other).toBeNull();
    await expect(run().claim('k').tryAcquire({ idempotencyKey: 'acquire-k-1' })).rejects.toBeInstanceOf(ConflictError);
  });
});
