import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Leasehold } from '../../packages/client/src/index.js';
import { advance, FAKE_TIMERS, MODES, startHarness, until, uuid, type Harness } from './harness.js';

describe.each(MODES)('renewal and lifecycle (%s)', (mode) => {
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

  it('lh.heartbeat sends the session, details and the tracked claimIds, and a shorter ttl shortens the local deadline until the scheduler re-extends it', async () => {
    const lease = await lh.space(spaceId).run(runId, { holder: 'w' }).claim('k').acquire();
    const answer = await lh.heartbeat({ ttl: '5s', details: { processed: 10, of: 50 } });
    expect(answer.results).toEqual([expect.objectContaining({ claimId: lease.claimId, status: 'held' })]);
    expect(h.requests('/claims/heartbeat')[0]?.body).toEqual({ ttl: '5s', holderSession: lh.session, details: { processed: 10, of: 50 }, claimIds: [lease.claimId] });
    expect((await lh.space(spaceId).claims.get('k')).details).toEqual({ processed: 10, of: 50 });
    expect(lease.remainingMs).toBeLessThanOrEqual(4_000);
    await advance(h, 10_000, 500);
    // The scheduler heartbeated within a third of the 5 s term, and every 10 s of its 30 s ttl since.
    expect(h.requests('/claims/heartbeat').length).toBeGreaterThanOrEqual(2);
    expect(lease.status).toBe('held');
    expect(lease.remainingMs).toBeGreaterThan(15_000);
    expect((await lh.space(spaceId).claims.get('k')).claimId).toBe(lease.claimId);
  });

  it('a run with its own holderSession is renewed by a heartbeat for that session', async () => {
    const mine = await lh.space(spaceId).run(runId, { holder: 'w' }).claim('a').acquire();
    const theirs = await lh.space(spaceId).run(uuid(), { holder: 'w2', holderSession: 'sess_other' }).claim('b').acquire();
    expect((await lh.space(spaceId).claims.get('b')).holderSession).toBe('sess_other');
    await advance(h, 40_000, 2_000);
    const sessions = h.requests('/claims/heartbeat').map((r) => (r.body as { holderSession: string }).holderSession);
    expect(new Set(sessions)).toEqual(new Set([lh.session, 'sess_other']));
    expect(mine.status).toBe('held');
    expect(theirs.status).toBe('held');
    expect((await lh.space(spaceId).claims.get('b')).claimId).toBe(theirs.claimId);
  });

  it('a run cancelled by someone else: the next heartbeat reports its leases lost', async () => {
    const lease = await lh.space(spaceId).run(runId, { holder: 'w' }).claim('k').acquire();
    await h.client().space(spaceId).cancelRun(runId);
    await advance(h, 10_000);
    expect(lease.signal.reason).toMatchObject({ name: 'LeaseLostError', reason: 'lost' });
  });

  it('close() releases every lease still held (space claims, queued places, task claims, spool messages)', async () => {
    const other = h.client();
    const held = await lh.space(spaceId).run(runId, { holder: 'w' }).claim('k').acquire();
    const blocker = await other.space(spaceId).run(uuid(), { holder: 'x' }).claim('q').acquire();
    const waiting = lh.space(spaceId).run(runId, { holder: 'w' }).claim('q').acquire().catch((error: unknown) => error);
    await h.settle();
    const { task, etag } = await lh.tasks.create({ title: 't' });
    await lh.tasks.claim(task.id, { etag });
    await lh.spool('s').create();
    await lh.spool('s').queue('q').put({ leaseTimeoutSeconds: 60 });
    await lh.spool('s').queue('q').send({ n: 1 });
    const received = await lh.spool('s').queue('q').receive();
    expect(lh.stats().leases).toBe(4);

    await lh.close();
    expect(await waiting).toMatchObject({ name: 'ClientClosedError' });
    expect(held.signal.reason).toMatchObject({ reason: 'released' });
    expect(received?.status).toBe('released');
    await expect(other.space(spaceId).claims.get('k')).rejects.toMatchObject({ status: 404 });
    expect((await other.space(spaceId).claims.get('q')).queueDepth).toBe(0);
    expect((await other.tasks.get(task.id)).task.claim).toBeNull();
    expect(await other.spool('s').queue('q').put({ leaseTimeoutSeconds: 60 })).toMatchObject({ depth: 1, leased: 0 });
    await expect(lh.tasks.get(task.id)).rejects.toMatchObject({ name: 'ClientClosedError' });
    await blocker.release();
  });

  it('close({ releaseLeases: false }) only stops renewing', async () => {
    await lh.space(spaceId).run(runId, { holder: 'w' }).claim('k').acquire();
    await lh.close({ releaseLeases: false });
    expect(h.requests('/release')).toHaveLength(0);
    expect((await h.client().space(spaceId).claims.get('k')).holder).toBe('w');
  });

  it('tasks.work after a restart with another session: the replayed claim is given back and claimed afresh', async () => {
    const store = new (await import('../../packages/client/src/index.js')).MemoryIdempotencyStore();
    const { task } = await lh.tasks.create({ title: 'moved' });
    const crashed = h.client({ session: 'sess_old', idempotencyStore: store, maxRetries: 0 });
    h.server.control.injectFault({ operationId: 'claimTask', dropResponse: true, times: 1 });
    // The claim commits, its answer is lost, the loop waits to try again, and the process stops.
    const working = crashed.tasks.work(task.id, () => 'unused').catch((error: unknown) => error);
    await until(() => h.requests(`/tasks/${task.id}/claim`).length === 1, 'the claim to be sent');
    await h.settle();
    await crashed.close({ releaseLeases: false });
    expect(await working).toMatchObject({ name: 'ClientClosedError' });
    const restarted = h.client({ session: 'sess_new', idempotencyStore: store });
    const claimIds: string[] = [];
    await restarted.tasks.work(task.id, async (ctx) => {
      claimIds.push(ctx.lease.claimId);
      expect(ctx.task.claim?.holderSession).toBe('sess_new');
    });
    expect(h.requests(`/tasks/${task.id}/claim`)).toHaveLength(3); // dropped, replayed, fresh
    expect(h.requests(`/tasks/${task.id}/claim/release`)).toHaveLength(1);
    expect((await lh.tasks.get(task.id)).task.status).toBe('Done');
  });
});
