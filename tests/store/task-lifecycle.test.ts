/**
 * The task lifecycle (issue 24, "Stalled tasks come back") on memory, PGlite and PostgreSQL, each
 * SQL transcript equal to the memory engine's: attempts, the last claim's outcome, stalled tasks,
 * the retry backoff, `?claimable=true`, and the operator's revoke and requeue.
 */
import { expect } from 'vitest';
import { describeStores, type World } from './support/world.js';

const MIN = 60_000;
const get = (w: World, taskId: number) => w.ok((ops) => ops.tasks.get({ credential: w.admin, taskId }));
const claimable = async (w: World, extra: { status?: 'Todo' | 'InProgress' | 'Blocked'; limit?: number; cursor?: string } = {}) =>
  (await w.ok((ops) => ops.tasks.list({ credential: w.admin, claimable: 'true', ...extra }))).data.map((t) => t.id);
const todo = async (w: World) => (await w.ok((ops) => ops.tasks.list({ credential: w.admin, status: 'Todo' }))).data.map((t) => t.id);

/** Create a task, claim it and mark it InProgress (a worker that then crashes); answers the claim's token. */
async function startWork(w: World, title: string): Promise<{ id: number; token: string; etag: string }> {
  const { task, etag } = await w.ok((ops) => ops.tasks.create({ credential: w.admin, title }));
  const claimed = await w.ok((ops) => ops.tasks.claim({ credential: w.admin, taskId: task.id, ifMatch: etag, holderSession: 'sess_a' }));
  const token = claimed.claim.token as string;
  const patched = await w.ok((ops) =>
    ops.tasks.update({ credential: w.admin, taskId: task.id, ifMatch: claimed.etag, claimToken: token, changes: { status: 'InProgress' } }),
  );
  return { id: task.id, token, etag: patched.etag };
}

describeStores('task lifecycle', {
  'an expired claim leaves the task stalled: claimable after its backoff, remembered after the sweep': async (w) => {
    const { id } = await startWork(w, 'crashes its worker');
    const live = (await get(w, id)).task;
    expect(live).toMatchObject({ attempts: 1, stalled: false, availableUtc: null, lastClaim: { outcome: 'held', holderSession: 'sess_a', endedUtc: null } });
    expect(await claimable(w)).toEqual([]);
    await w.advance(15 * MIN);
    const stalled = (await get(w, id)).task;
    expect(stalled).toMatchObject({ status: 'InProgress', claim: null, attempts: 1, stalled: true, lastClaim: { outcome: 'expired' } });
    expect(stalled.lastClaim?.endedUtc).toBe(live.claim?.expiresUtc);
    expect(Date.parse(stalled.availableUtc as string) - Date.parse(stalled.lastClaim?.endedUtc as string)).toBe(5_000);
    // The seed's pattern never sees it again; the claimable filter does, once the backoff is over.
    expect(await todo(w)).toEqual([]);
    expect(await claimable(w)).toEqual([]);
    await w.advance(5_000);
    expect(await claimable(w)).toEqual([id]);
    expect(await claimable(w, { status: 'InProgress' })).toEqual([id]);
    expect(await claimable(w, { status: 'Todo' })).toEqual([]);
    // A second worker takes it over: attempt 2; it crashes too, and the lease row is forgotten.
    const again = await w.ok(async (ops) => ops.tasks.claim({ credential: w.admin, taskId: id, ifMatch: (await ops.tasks.get({ credential: w.admin, taskId: id })).etag, holderSession: 'sess_b' }));
    expect((await get(w, id)).task).toMatchObject({ attempts: 2, stalled: false, lastClaim: { claimId: again.claim.claimId, outcome: 'held', holderSession: 'sess_b' } });
    await w.advance(15 * MIN + 11 * MIN);
    const forgotten = (await get(w, id)).task;
    expect(forgotten).toMatchObject({ stalled: true, attempts: 2, lastClaim: { claimId: again.claim.claimId, outcome: 'expired' } });
    expect(Date.parse(forgotten.availableUtc as string) - Date.parse(forgotten.lastClaim?.endedUtc as string)).toBe(10_000);
    expect(await claimable(w)).toEqual([id]);
  },

  'release and complete record their outcome; the backoff doubles with each attempt': async (w) => {
    const { task, etag } = await w.ok((ops) => ops.tasks.create({ credential: w.admin, title: 'flaky' }));
    expect(task).toMatchObject({ attempts: 0, stalled: false, availableUtc: null, lastClaim: null });
    let current = etag;
    for (const backoff of [5_000, 10_000, 20_000]) {
      const claimed = await w.ok((ops) => ops.tasks.claim({ credential: w.admin, taskId: task.id, ifMatch: current }));
      const released = await w.ok((ops) => ops.tasks.release({ credential: w.admin, taskId: task.id, ifMatch: claimed.etag, token: claimed.claim.token }));
      const read = await get(w, task.id);
      expect(read.task).toMatchObject({ status: 'Todo', stalled: false, lastClaim: { outcome: 'released', endedUtc: released.release.releasedUtc } });
      expect(Date.parse(read.task.availableUtc as string) - Date.parse(released.release.releasedUtc)).toBe(backoff);
      expect(await claimable(w)).toEqual([]);
      await w.advance(backoff);
      expect(await claimable(w)).toEqual([task.id]);
      current = read.etag;
    }
    const claimed = await w.ok((ops) => ops.tasks.claim({ credential: w.admin, taskId: task.id, ifMatch: current }));
    const done = await w.ok((ops) => ops.tasks.complete({ credential: w.admin, taskId: task.id, ifMatch: claimed.etag, claimToken: claimed.claim.token }));
    expect(done.task).toMatchObject({ status: 'Done', attempts: 4, stalled: false, availableUtc: null, lastClaim: { outcome: 'completed' } });
    expect(await claimable(w)).toEqual([]);
  },

  'an operator revokes a claim or requeues a task; other accounts get 404': async (w) => {
    const { id, token, etag } = await startWork(w, 'stuck');
    expect(await w.run((ops) => ops.tasks.revokeClaim({ credential: w.other, taskId: id, ifMatch: etag }))).toMatchObject({ code: 'task_not_found', status: 404 });
    expect(await w.run((ops) => ops.tasks.requeue({ credential: w.other, taskId: id, ifMatch: etag }))).toMatchObject({ code: 'task_not_found', status: 404 });
    expect(await w.run((ops) => ops.tasks.revokeClaim({ credential: w.admin, taskId: id, ifMatch: undefined }))).toMatchObject({ code: 'if_match_required' });
    const revoked = await w.ok((ops) => ops.tasks.revokeClaim({ credential: w.admin, taskId: id, ifMatch: etag }));
    expect(revoked.task).toMatchObject({ status: 'InProgress', claim: null, stalled: true, attempts: 1, availableUtc: null, lastClaim: { outcome: 'revoked' } });
    expect(await claimable(w)).toEqual([id]);
    // The old holder's token no longer writes.
    expect(
      await w.run((ops) => ops.tasks.addNote({ credential: w.admin, taskId: id, ifMatch: revoked.etag, claimToken: token, text: 'late' })),
    ).toMatchObject({ code: 'lease_expired', status: 409 });
    expect(await w.run((ops) => ops.tasks.revokeClaim({ credential: w.admin, taskId: id, ifMatch: revoked.etag }))).toMatchObject({ code: 'claim_not_held' });
    // Requeue: a live claim revoked, back to Todo, attempts counted afresh.
    const claimed = await w.ok((ops) => ops.tasks.claim({ credential: w.admin, taskId: id, ifMatch: revoked.etag }));
    const patched = await w.ok((ops) =>
      ops.tasks.update({ credential: w.admin, taskId: id, ifMatch: claimed.etag, claimToken: claimed.claim.token, changes: { status: 'Blocked' } }),
    );
    expect(await claimable(w)).toEqual([]);
    const requeued = await w.ok((ops) => ops.tasks.requeue({ credential: w.admin, taskId: id, ifMatch: patched.etag }));
    expect(requeued.task).toMatchObject({ status: 'Todo', claim: null, attempts: 0, stalled: false, availableUtc: null, lastClaim: { outcome: 'revoked' } });
    expect(await claimable(w)).toEqual([id]);
    const again = await w.ok((ops) => ops.tasks.claim({ credential: w.admin, taskId: id, ifMatch: requeued.etag }));
    const done = await w.ok((ops) => ops.tasks.complete({ credential: w.admin, taskId: id, ifMatch: again.etag, claimToken: again.claim.token }));
    expect(await w.run((ops) => ops.tasks.requeue({ credential: w.admin, taskId: id, ifMatch: done.etag }))).toMatchObject({ code: 'task_completed' });
    expect(await w.run((ops) => ops.tasks.revokeClaim({ credential: w.admin, taskId: id, ifMatch: done.etag }))).toMatchObject({ code: 'task_completed' });
  },

  'the claimable filter: Todo and stalled tasks in id order, paged, and nothing else': async (w) => {
    const ids: number[] = [];
    for (const title of ['a', 'b', 'c', 'd', 'e']) ids.push((await w.ok((ops) => ops.tasks.create({ credential: w.admin, title }))).task.id);
    const [a, b, c, d, e] = ids as [number, number, number, number, number];
    // b: claimed and held; c: stalled (its claim expires below); d: Blocked; e: Done.
    await w.ok(async (ops) => ops.tasks.claim({ credential: w.admin, taskId: b, ifMatch: (await ops.tasks.get({ credential: w.admin, taskId: b })).etag }));
    await startWork(w, 'c2');
    const stalledId = ids.length + 1;
    const blocked = await w.ok(async (ops) => ops.tasks.update({ credential: w.admin, taskId: d, ifMatch: (await ops.tasks.get({ credential: w.admin, taskId: d })).etag, changes: { status: 'Blocked' } }));
    expect(blocked.task.status).toBe('Blocked');
    await w.ok(async (ops) => ops.tasks.complete({ credential: w.admin, taskId: e, ifMatch: (await ops.tasks.get({ credential: w.admin, taskId: e })).etag }));
    expect(await claimable(w)).toEqual([a, c]);
    // Both claims expire (b's was never started: it stays Todo); 5 s later both are claimable.
    await w.advance(15 * MIN + 5_000);
    expect(await claimable(w)).toEqual([a, b, c, stalledId]);
    const first = await w.ok((ops) => ops.tasks.list({ credential: w.admin, claimable: 'true', limit: 2 }));
    expect(first.data.map((t) => t.id)).toEqual([a, b]);
    expect(await claimable(w, { cursor: first.nextCursor as string })).toEqual([c, stalledId]);
    expect(await claimable(w, { status: 'Blocked' })).toEqual([]);
    expect(await w.run((ops) => ops.tasks.list({ credential: w.admin, claimable: 'yes' as 'true' }))).toMatchObject({ code: 'invalid_request', param: 'claimable' });
    expect((await w.ok((ops) => ops.tasks.list({ credential: w.admin, claimable: 'false' }))).data).toHaveLength(6);
  },
});
