import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConnectionError, FileIdempotencyStore, type Leasehold } from '../../packages/client/src/index.js';
import { advance, FAKE_TIMERS, MODES, startHarness, uuid, type Harness } from './harness.js';

describe.each(MODES)('retries and idempotency (%s)', (mode) => {
  let h: Harness;
  let lh: Leasehold;
  let spaceId: string;
  let runId: string;
  let dir: string | undefined;

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
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  const keysOf = (suffix: string, method = 'POST') => h.requests(suffix, method).map((r) => r.headers['idempotency-key']);

  it.each([503, 429])('retries a %i after its Retry-After, with the same Idempotency-Key', async (status) => {
    h.server.control.injectFault({ operationId: 'acquireSpaceClaim', status, times: 1, retryAfterSeconds: 2 });
    const acquiring = lh.space(spaceId).run(runId, { holder: 'w' }).claim('k').acquire();
    await h.settle();
    expect(h.requests('/claims', 'POST')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1999);
    await h.settle();
    expect(h.requests('/claims', 'POST')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    const lease = await acquiring;
    expect(lease.status).toBe('held');
    const keys = keysOf('/claims');
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
  });

  it('honours a real rate limit: 429 rate_limited, Retry-After, then the retry goes through', async () => {
    h.server.control.setRateLimit('lh_test_admin', 1);
    await lh.tasks.create({ title: 'first' });
    const second = lh.tasks.create({ title: 'second' });
    await h.settle();
    expect(h.requests('/v1/tasks')).toHaveLength(2);
    await advance(h, 999, 999);
    expect(h.requests('/v1/tasks')).toHaveLength(2);
    await advance(h, 1, 1);
    expect((await second).task.title).toBe('second');
    const keys = keysOf('/v1/tasks');
    expect(keys).toHaveLength(3);
    expect(keys[2]).toBe(keys[1]);
  });

  it('a retry after a dropped response replays the committed write instead of repeating it', async () => {
    h.server.control.injectFault({ operationId: 'createTask', dropResponse: true, times: 1 });
    const creating = lh.tasks.create({ title: 'once' });
    await h.settle();
    await vi.advanceTimersByTimeAsync(500); // the backoff (full jitter, at most 500 ms before the first retry)
    const { task } = await creating;
    const keys = keysOf('/v1/tasks');
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
    const next = await lh.tasks.create({ title: 'second' });
    expect(next.task.id).toBe(task.id + 1); // exactly one task was created by the two attempts
  });

  it('crash and restart: a second client with the same FileIdempotencyStore and operationId gets the original receipt', async () => {
    dir = await mkdtemp(join(tmpdir(), 'leasehold-idem-'));
    const session = 'sess_worker_7';
    const first = h.client({ session, idempotencyStore: new FileIdempotencyStore({ directory: dir, fsync: false }), maxRetries: 0 });
    h.server.control.injectFault({ operationId: 'acquireSpaceClaim', dropResponse: true, times: 1 });
    const claim = (client: Leasehold) => client.space(spaceId).run(runId, { holder: 'w7' }).claim('nightly');
    await expect(claim(first).tryAcquire({ operationId: 'nightly-acquire' })).rejects.toBeInstanceOf(ConnectionError);
    const held = await lh.space(spaceId).claims.get('nightly'); // the write was committed
    await first.close({ releaseLeases: false }); // "crash"

    const second = h.client({ session, idempotencyStore: new FileIdempotencyStore({ directory: dir, fsync: false }) });
    const lease = await claim(second).tryAcquire({ operationId: 'nightly-acquire' });
    expect(lease).not.toBeNull();
    expect(lease?.replayed).toBe(true);
    expect(lease?.claimId).toBe(held.claimId);
    expect(lease?.fence).toBe(held.fence);
    const keys = keysOf('/claims');
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
    // The replayed claim is this session's: the next heartbeat renews it.
    await lease?.renew();
    await lease?.release();
    await expect(lh.space(spaceId).claims.get('nightly')).rejects.toMatchObject({ status: 404 });
  });
});
