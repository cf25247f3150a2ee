/**
 * Stalled tasks come back (issue 24), through the SDK: a worker that dies after marking its task
 * InProgress leaves it stalled; `list({ claimable: true })` finds it and `work()` finishes it;
 * `maxAttempts` stops retrying a task that keeps failing; an operator revokes or requeues.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AttemptsExhaustedError, type Leasehold } from '../../packages/client/src/index.js';
import { advance, FAKE_TIMERS, startHarness, type Harness } from './harness.js';

const MIN = 60_000;

async function ids(lh: Leasehold, query: Parameters<Leasehold['tasks']['list']>[0]): Promise<number[]> {
  const out: number[] = [];
  for await (const task of lh.tasks.list(query)) out.push(task.id);
  return out;
}

describe('task lifecycle through the client', () => {
  let h: Harness;
  let lh: Leasehold;

  beforeEach(async () => {
    h = await startHarness('fetch');
    vi.useFakeTimers(FAKE_TIMERS);
    lh = h.client();
  });

  afterEach(async () => {
    vi.useRealTimers();
    await h.close();
  });

  it('a worker that dies after marking its task InProgress leaves it stalled; list({ claimable }) finds it and work() finishes it', async () => {
    const { task } = await lh.tasks.create({ title: 'rebuild the index' });
    // Worker A claims, marks InProgress, then dies: no release, no more heartbeats.
    const crashed = h.client();
    const claimed = await crashed.tasks.claim(task.id, { etag: (await crashed.tasks.get(task.id)).etag });
    await crashed.tasks.update(task.id, { status: 'InProgress' }, { etag: claimed.etag, claimToken: claimed.lease.token });
    await crashed.close({ releaseLeases: false });
    expect(await ids(lh, { claimable: true })).toEqual([]);
    await advance(h, 15 * MIN + 5_000, MIN / 4);
    const { task: stalled } = await lh.tasks.get(task.id);
    expect(stalled).toMatchObject({ status: 'InProgress', claim: null, stalled: true, attempts: 1, lastClaim: { outcome: 'expired', claimId: claimed.lease.claimId } });
    // The seed's pattern misses it; the claimable filter does not.
    expect(await ids(lh, { status: 'Todo' })).toEqual([]);
    expect(await ids(lh, { claimable: true })).toEqual([task.id]);
    expect(h.requests('/v1/tasks', 'GET').at(-1)).toBeDefined();
    const patches = h.requests(`/tasks/${task.id}`, 'PATCH').length;
    const value = await lh.tasks.work(task.id, async (ctx) => `rebuilt under fence ${ctx.lease.fence}`);
    expect(value).toMatch(/^rebuilt under fence \d+$/);
    expect(h.requests(`/tasks/${task.id}`, 'PATCH'), 'already InProgress: no second PATCH').toHaveLength(patches);
    const { task: done } = await lh.tasks.get(task.id);
    expect(done).toMatchObject({ status: 'Done', attempts: 2, stalled: false, lastClaim: { outcome: 'completed' } });
    expect(await ids(lh, { claimable: true })).toEqual([]);
  });

  it('maxAttempts: after that many attempts work() blocks the task with a note instead of claiming it; requeue retries it', async () => {
    const { task } = await lh.tasks.create({ title: 'poison' });
    const boom = async (): Promise<never> => {
      throw new Error('boom');
    };
    await expect(lh.tasks.work(task.id, boom, { maxAttempts: 2 })).rejects.toThrow('boom');
    expect((await lh.tasks.get(task.id)).task).toMatchObject({ status: 'Todo', attempts: 1, lastClaim: { outcome: 'released' } });
    // The backoff: not claimable for 5 s after the first failed attempt.
    expect(await ids(lh, { claimable: true })).toEqual([]);
    await advance(h, 5_000);
    expect(await ids(lh, { claimable: true })).toEqual([task.id]);
    await expect(lh.tasks.work(task.id, boom, { maxAttempts: 2 })).rejects.toThrow('boom');
    await advance(h, 10_000);
    const claims = h.requests(`/tasks/${task.id}/claim`, 'POST').length;
    const fn = vi.fn(async () => 'never');
    const refused = await lh.tasks.work(task.id, fn, { maxAttempts: 2 }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AttemptsExhaustedError);
    expect(refused).toMatchObject({ taskId: task.id, attempts: 2, maxAttempts: 2 });
    expect(fn).not.toHaveBeenCalled();
    expect(h.requests(`/tasks/${task.id}/claim`, 'POST'), 'not claimed again').toHaveLength(claims);
    const { task: blocked, etag } = await lh.tasks.get(task.id);
    expect(blocked).toMatchObject({ status: 'Blocked', attempts: 2, claim: null });
    expect(blocked.notes.at(-1)?.text).toMatch(/^tasks\.work gave up after 2 attempts \(maxAttempts 2\); the last claim released at /);
    expect(await ids(lh, { claimable: true })).toEqual([]);
    // An operator requeues it: Todo, attempts counted afresh, claimable at once.
    const requeued = await lh.tasks.requeue(task.id, { etag });
    expect(requeued.task).toMatchObject({ status: 'Todo', attempts: 0, availableUtc: null });
    expect(await lh.tasks.work(task.id, async () => 'fixed', { maxAttempts: 2 })).toBe('fixed');
    expect((await lh.tasks.get(task.id)).task).toMatchObject({ status: 'Done', attempts: 1 });
    await expect(lh.tasks.work(task.id, fn, { maxAttempts: 0 })).rejects.toMatchObject({ name: 'InvalidArgumentError' });
  });

  it('an operator revokes a live claim: the holder loses it (its signal aborts) and the task is claimable at once; reader keys get 403, other accounts 404', async () => {
    const { task } = await lh.tasks.create({ title: 'wedged' });
    let aborted = false;
    const working = lh.tasks.work(task.id, (ctx) => new Promise<never>((_, reject) => {
      ctx.lease.signal.addEventListener('abort', () => {
        aborted = true;
        reject(ctx.lease.signal.reason);
      });
    }));
    const caught = working.catch((error: unknown) => error);
    await advance(h, 1_000);
    const { etag } = await lh.tasks.get(task.id);
    await expect(h.client({ apiKey: 'lh_test_reader' }).tasks.revokeClaim(task.id, { etag })).rejects.toMatchObject({ status: 403, code: 'permission_denied' });
    await expect(h.client({ apiKey: 'lh_test_other' }).tasks.revokeClaim(task.id, { etag })).rejects.toMatchObject({ status: 404 });
    const revoked = await lh.tasks.revokeClaim(task.id, { etag });
    expect(revoked.task).toMatchObject({ status: 'InProgress', claim: null, stalled: true, lastClaim: { outcome: 'revoked' } });
    expect(await ids(lh, { claimable: true })).toEqual([task.id]);
    // The holder's next heartbeat reports the claim lost.
    for (let i = 0; i < 40 && !aborted; i++) await advance(h, 30_000, 15_000);
    expect(aborted).toBe(true);
    expect(await caught).toMatchObject({ name: 'LeaseLostError' });
  });
});
