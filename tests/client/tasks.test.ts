import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ClientClosedError,
  FileIdempotencyStore,
  LeaseLostError,
  TaskLease,
  UnusableLeaseError,
  type Leasehold,
} from '../../packages/client/src/index.js';
import { advance, FAKE_TIMERS, MODES, startHarness, until, type Harness } from './harness.js';

describe.each(MODES)('tasks (%s)', (mode) => {
  let h: Harness;
  let lh: Leasehold;
  let dir: string | undefined;

  /**
   * A worker that dies mid-claim: the claim commits but its answer is lost, `tasks.work` rides
   * through the failure (waiting to try again), and the process stops (its client closes
   * without releasing) before the next try. The claim's key stays in the idempotency store.
   */
  async function crashMidClaim(crashed: Leasehold, taskId: number): Promise<void> {
    h.server.control.injectFault({ operationId: 'claimTask', dropResponse: true, times: 1 });
    const working = crashed.tasks.work(taskId, () => 'unused').catch((error: unknown) => error);
    await until(() => h.requests(`/tasks/${taskId}/claim`).length === 1, 'the claim to be sent');
    await h.settle();
    await crashed.close({ releaseLeases: false });
    expect(await working).toBeInstanceOf(ClientClosedError);
  }

  beforeEach(async () => {
    h = await startHarness(mode);
    vi.useFakeTimers(FAKE_TIMERS);
    lh = h.client();
  });

  afterEach(async () => {
    vi.useRealTimers();
    await h.close();
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('lists tasks with an async iterator, a page per request, filtered by status', async () => {
    for (let i = 1; i <= 5; i++) await lh.tasks.create({ title: `task ${i}` });
    const { etag } = await lh.tasks.get(3);
    await lh.tasks.update(3, { status: 'Blocked' }, { etag });
    const all: number[] = [];
    for await (const task of lh.tasks.list({ limit: 2 })) all.push(task.id);
    expect(all).toEqual([1, 2, 3, 4, 5]);
    expect(h.requests('/v1/tasks', 'GET'), 'three pages of two').toHaveLength(3);
    const todo: number[] = [];
    for await (const task of lh.tasks.list({ status: 'Todo' })) todo.push(task.id);
    expect(todo).toEqual([1, 2, 4, 5]);
    // Breaking out early fetches no further page.
    const before = h.requests('/v1/tasks', 'GET').length;
    for await (const task of lh.tasks.list({ limit: 1 })) if (task.id === 1) break;
    expect(h.requests('/v1/tasks', 'GET').length).toBe(before + 1);
  });

  it('raw calls: create, get, claim (registered), protected writes, release', async () => {
    const { task, etag } = await lh.tasks.create({ title: 'Rebuild', description: 'totals' });
    expect(task).toMatchObject({ status: 'Todo', version: 1, claim: null });
    const claimed = await lh.tasks.claim(task.id, { etag });
    expect(claimed.lease).toBeInstanceOf(TaskLease);
    expect(claimed.lease).toMatchObject({ taskId: task.id, kind: 'task', status: 'held' });
    expect(h.requests(`/tasks/${task.id}/claim`)[0]?.headers).toMatchObject({ 'if-match': etag, 'leasehold-session': lh.session });
    await expect(lh.tasks.addNote(task.id, 'no token', { etag: claimed.etag })).rejects.toMatchObject({ status: 409, code: 'claim_required' });
    const noted = await lh.tasks.addNote(task.id, 'with token', { etag: claimed.etag, claimToken: claimed.lease.token });
    expect(noted.note).toMatchObject({ text: 'with token', claimId: claimed.lease.claimId });
    await expect(lh.tasks.update(task.id, { status: 'Blocked' }, { etag: claimed.etag, claimToken: claimed.lease.token })).rejects.toMatchObject({
      name: 'PreconditionFailedError',
      status: 412,
    });
    await claimed.lease.release();
    const after = await lh.tasks.get(task.id);
    expect(after.task.claim).toBeNull();
    expect(after.task.notes.map((n) => n.text)).toEqual(['with token']);
  });

  it('work: the safe loop claims, marks InProgress, runs fn with guarded writes, completes with its value', async () => {
    const { task } = await lh.tasks.create({ title: 'Rebuild the November report' });
    const seenCtx: { status?: string; etag?: string } = {};
    const value = await lh.tasks.work(
      task.id,
      async (ctx: Leasehold.TaskWorkContext) => {
        seenCtx.status = ctx.task.status;
        seenCtx.etag = ctx.etag;
        expect(ctx.lease.signal.aborted).toBe(false);
        await ctx.addNote('Draft prepared.');
        expect(ctx.etag).not.toBe(seenCtx.etag);
        await ctx.update({ description: 'Recomputed totals.' });
        return { pages: 12 };
      },
      { note: (v) => `Published ${v.pages} pages.` },
    );
    expect(value).toEqual({ pages: 12 });
    expect(seenCtx.status).toBe('InProgress');
    const done = await lh.tasks.get(task.id);
    expect(done.task).toMatchObject({ status: 'Done', result: { pages: 12 }, claim: null, description: 'Recomputed totals.' });
    expect(done.task.notes.map((n) => n.text)).toEqual(['Draft prepared.', 'Published 12 pages.']);
    // Every protected write carried If-Match and the claim token; the claim used a persisted key.
    const token = (h.requests(`/tasks/${task.id}/notes`)[0]?.headers ?? {})['x-task-claim'];
    expect(token).toMatch(/^[0-9a-f-]{36}$/);
    for (const write of [...h.requests(`/tasks/${task.id}`, 'PATCH'), ...h.requests(`/tasks/${task.id}/complete`)]) {
      expect(write.headers['if-match']).toMatch(/^"task-/);
      expect(write.headers['x-task-claim']).toBe(token);
    }
    expect(h.requests(`/tasks/${task.id}/claim/release`)).toHaveLength(0); // completing released it
    expect(lh.stats().leases).toBe(0);
  });

  it('work: when fn throws, the failure is recorded (a note, status back to Todo), the claim released, and the error rethrown', async () => {
    const { task } = await lh.tasks.create({ title: 'flaky' });
    const boom = new Error('renderer crashed');
    await expect(lh.tasks.work(task.id, () => Promise.reject(boom))).rejects.toBe(boom);
    const after = await lh.tasks.get(task.id);
    expect(after.task).toMatchObject({ status: 'Todo', claim: null });
    expect(after.task.notes.map((note) => note.text)).toEqual(['work() failed: Error: renderer crashed (task back to Todo, claim released).']);
    expect(after.task.notes[0]?.claimId).toEqual(expect.stringMatching(/^clm_/));
    expect(h.requests(`/tasks/${task.id}/claim/release`)).toHaveLength(1);
    const other = h.client();
    expect(await other.tasks.work(task.id, () => 'second try')).toBe('second try');
    expect((await lh.tasks.get(task.id)).task).toMatchObject({ status: 'Done', result: 'second try' });
  });

  it('work: failureStatus Blocked and a failureNote of your own; failureNote false writes none; the error is always rethrown', async () => {
    const { task } = await lh.tasks.create({ title: 'needs a human' });
    const boom = new TypeError('bad input row 7');
    await expect(
      lh.tasks.work(task.id, () => { throw boom; }, { failureStatus: 'Blocked', failureNote: (error) => `blocked: ${(error as Error).message}` }),
    ).rejects.toBe(boom);
    expect((await lh.tasks.get(task.id)).task).toMatchObject({ status: 'Blocked', claim: null, notes: [expect.objectContaining({ text: 'blocked: bad input row 7' })] });

    const { task: quiet } = await lh.tasks.create({ title: 'quiet' });
    await expect(lh.tasks.work(quiet.id, () => Promise.reject(new Error('x')), { failureNote: false })).rejects.toThrow('x');
    expect((await lh.tasks.get(quiet.id)).task).toMatchObject({ status: 'Todo', claim: null, notes: [] });
  });

  it('work: a failure that cannot be recorded still releases the claim and rethrows fn\'s error', async () => {
    const { task } = await lh.tasks.create({ title: 'flaky writes' });
    h.server.control.injectFault({ operationId: 'addTaskNote', status: 400, times: 1 });
    const boom = new Error('renderer crashed');
    await expect(lh.tasks.work(task.id, () => Promise.reject(boom))).rejects.toBe(boom);
    expect((await lh.tasks.get(task.id)).task).toMatchObject({ claim: null, status: 'Todo', notes: [] });
  });

  it('work: a write after the claim ran out and another worker completed the task rejects with LeaseLostError, not 422, and records nothing', async () => {
    const { task } = await lh.tasks.create({ title: 'overtaken' });
    const other = h.client();
    const outcome = lh.tasks.work(task.id, async (ctx) => {
      // The server takes the claim away (a stall or clock jump outran it) and another worker finishes the task.
      expect(h.server.control.loseLease(ctx.lease.claimId)).toBe(1);
      await other.tasks.work(task.id, () => 'theirs');
      await ctx.update({ title: 'mine' });
      return 'mine';
    });
    await expect(outcome).rejects.toMatchObject({ name: 'LeaseLostError', reason: 'lost' });
    expect((await other.tasks.get(task.id)).task).toMatchObject({ status: 'Done', result: 'theirs', title: 'overtaken', notes: [] });
  });

  it('work: bad options are refused before anything is sent', async () => {
    const before = h.seen.length;
    await expect(lh.tasks.work(1, () => 1, { failureStatus: 'Done' as 'Todo' })).rejects.toMatchObject({ name: 'InvalidArgumentError', param: 'failureStatus' });
    await expect(lh.tasks.work(1, 'not a function' as unknown as () => 1)).rejects.toMatchObject({ name: 'InvalidArgumentError', param: 'fn' });
    expect(h.seen.length).toBe(before);
  });

  it('work: a claim lost mid-work aborts ctx.lease.signal and rejects with LeaseLostError, without completing', async () => {
    const { task } = await lh.tasks.create({ title: 'long' });
    let claimId = '';
    const working = lh.tasks.work(task.id, async (ctx) => {
      claimId = ctx.lease.claimId;
      await new Promise((resolve) => ctx.lease.signal.addEventListener('abort', resolve));
      return 'never recorded';
    });
    await h.settle();
    expect(h.server.control.loseLease(claimId)).toBe(1);
    const outcome = working.catch((error: unknown) => error);
    await advance(h, 300_000, 30_000); // a task claim is heartbeated every 5 minutes
    const error = await outcome;
    expect(error).toBeInstanceOf(LeaseLostError);
    expect(error).toMatchObject({ reason: 'lost', claimId });
    expect(h.requests(`/tasks/${task.id}/complete`)).toHaveLength(0);
    expect(h.requests(`/tasks/${task.id}/claim/release`)).toHaveLength(0);
    expect((await lh.tasks.get(task.id)).task.status).toBe('InProgress');
  });

  it('work: a restarted worker replays its claim (same store, same session) and finishes the task', async () => {
    dir = await mkdtemp(join(tmpdir(), 'leasehold-work-'));
    const store = () => new FileIdempotencyStore({ directory: dir as string, fsync: false });
    const session = 'sess_worker_3';
    const { task } = await lh.tasks.create({ title: 'replay me' });
    const crashed = h.client({ session, idempotencyStore: store(), maxRetries: 0 });
    await crashMidClaim(crashed, task.id);

    const restarted = h.client({ session, idempotencyStore: store() });
    expect(await restarted.tasks.work(task.id, (ctx) => ctx.lease.replayed)).toBe(true);
    const claims = h.requests(`/tasks/${task.id}/claim`);
    expect(claims).toHaveLength(2);
    expect(claims[1]?.headers['idempotency-key']).toBe(claims[0]?.headers['idempotency-key']);
    expect((await lh.tasks.get(task.id)).task).toMatchObject({ status: 'Done', result: true });
  });

  it('work: refuses a replayed claim with under 30 s left (released, typed error)', async () => {
    dir = await mkdtemp(join(tmpdir(), 'leasehold-work-'));
    const store = () => new FileIdempotencyStore({ directory: dir as string, fsync: false });
    const { task } = await lh.tasks.create({ title: 'stale' });
    const crashed = h.client({ session: 'sess_w', idempotencyStore: store(), maxRetries: 0 });
    await crashMidClaim(crashed, task.id);
    h.server.control.advanceClock(880_000); // 20 s of the 15-minute claim left

    const restarted = h.client({ session: 'sess_w', idempotencyStore: store() });
    const fn = vi.fn();
    const error = await restarted.tasks.work(task.id, fn).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnusableLeaseError);
    expect((error as UnusableLeaseError).remainingMs).toBeLessThan(30_000);
    expect(fn).not.toHaveBeenCalled();
    expect((await lh.tasks.get(task.id)).task.claim).toBeNull();
  });
});
