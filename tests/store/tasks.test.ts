/** Tasks and task claims through the operations interface, on memory, PGlite and PostgreSQL. */
import { expect } from 'vitest';
import { describeStores, type World } from './support/world.js';

const create = (w: World, title = 'Reconcile invoices') => w.ok((ops) => ops.tasks.create({ credential: w.admin, title }));

describeStores('tasks', {
  'create, read, claim, renew, note, patch, complete': async (w) => {
    const { task, etag } = await create(w);
    expect(task).toMatchObject({ object: 'task', id: 1, status: 'Todo', version: 1, claim: null });
    expect(etag).toBe('"task-1-v1"');
    expect((await create(w, 'second')).task.id).toBe(2);
    const read = await w.ok((ops) => ops.tasks.get({ credential: w.admin, taskId: 1 }));
    expect(read.etag).toBe(etag);
    const claimed = await w.ok((ops) => ops.tasks.claim({ credential: w.admin, taskId: 1, ifMatch: etag, holderSession: 'sess' }));
    expect(claimed.claim).toMatchObject({ object: 'task_claim', taskId: 1, fence: 1, leaseSeconds: 900 });
    const token = claimed.claim.token as string;
    await w.advance(60_000);
    const renewed = await w.ok((ops) => ops.tasks.renew({ credential: w.admin, taskId: 1, ifMatch: claimed.etag, token }));
    expect(renewed.etag).toBe(claimed.etag);
    expect(renewed.claim).not.toHaveProperty('token');
    const noted = await w.ok((ops) =>
      ops.tasks.addNote({ credential: w.admin, taskId: 1, ifMatch: claimed.etag, claimToken: token, text: 'started' }),
    );
    expect(noted.task.notes).toEqual([expect.objectContaining({ text: 'started', claimId: claimed.claim.claimId })]);
    const patched = await w.ok((ops) =>
      ops.tasks.update({ credential: w.admin, taskId: 1, ifMatch: noted.etag, claimToken: token, changes: { status: 'InProgress', title: 'New' } }),
    );
    expect(patched.task).toMatchObject({ status: 'InProgress', title: 'New', version: 3 });
    expect(patched.task.claim).toMatchObject({ claimId: claimed.claim.claimId, holderSession: 'sess' });
    const done = await w.ok((ops) =>
      ops.tasks.complete({ credential: w.admin, taskId: 1, ifMatch: patched.etag, claimToken: token, result: { ok: 1, z: [1, 'a'] }, note: 'done' }),
    );
    expect(done.task).toMatchObject({ status: 'Done', claim: null, result: { ok: 1, z: [1, 'a'] } });
    expect(done.task.notes).toHaveLength(2);
    expect(await w.run((ops) => ops.tasks.complete({ credential: w.admin, taskId: 1, ifMatch: done.etag }))).toMatchObject({
      code: 'task_completed',
    });
    expect(
      await w.run((ops) => ops.tasks.update({ credential: w.admin, taskId: 1, ifMatch: done.etag, changes: { title: 'x' } })),
    ).toMatchObject({ code: 'invalid_transition' });
    expect(await w.run((ops) => ops.tasks.claim({ credential: w.admin, taskId: 1, ifMatch: done.etag }))).toMatchObject({
      code: 'task_completed',
    });
  },

  'claim, renew and release keep the ETag: one If-Match read before the claim serves all three (the seed page)': async (w) => {
    const { etag } = await create(w);
    const claimed = await w.ok((ops) => ops.tasks.claim({ credential: w.admin, taskId: 1, ifMatch: etag }));
    expect(claimed.etag).toBe(etag);
    const token = claimed.claim.token as string;
    const read = await w.ok((ops) => ops.tasks.get({ credential: w.admin, taskId: 1 }));
    expect([read.etag, read.task.version, read.task.claim?.claimId]).toEqual([etag, 1, claimed.claim.claimId]);
    await w.advance(60_000);
    const renewed = await w.ok((ops) => ops.tasks.renew({ credential: w.admin, taskId: 1, ifMatch: etag, token }));
    expect(renewed.etag).toBe(etag);
    // The claim's own safety stays with its token: a write without X-Task-Claim is refused.
    expect(await w.run((ops) => ops.tasks.addNote({ credential: w.admin, taskId: 1, ifMatch: etag, text: 'x' }))).toMatchObject({
      code: 'claim_required',
    });
    const released = await w.ok((ops) => ops.tasks.release({ credential: w.admin, taskId: 1, ifMatch: etag, token }));
    expect(released.etag).toBe(etag);
    const after = await w.ok((ops) => ops.tasks.get({ credential: w.admin, taskId: 1 }));
    expect([after.etag, after.task.version, after.task.claim, after.task.updatedUtc]).toEqual([etag, 1, null, read.task.updatedUtc]);
    // A second claim takes a greater fence with the same ETag; a content write still changes it.
    const again = await w.ok((ops) => ops.tasks.claim({ credential: w.admin, taskId: 1, ifMatch: etag }));
    expect(again.claim.fence).toBeGreaterThan(claimed.claim.fence);
    const noted = await w.ok((ops) =>
      ops.tasks.addNote({ credential: w.admin, taskId: 1, ifMatch: etag, claimToken: again.claim.token as string, text: 'n' }),
    );
    expect(noted.etag).toBe('"task-1-v2"');
    expect(await w.run((ops) => ops.tasks.release({ credential: w.admin, taskId: 1, ifMatch: etag, token: again.claim.token }))).toMatchObject({
      code: 'etag_mismatch',
    });
  },

  'If-Match, tokens and claims: every refusal and its order': async (w) => {
    const { etag } = await create(w);
    expect(await w.run((ops) => ops.tasks.create({ credential: w.admin, title: '' }))).toMatchObject({ param: 'title' });
    expect(await w.run((ops) => ops.tasks.get({ credential: w.admin, taskId: 99 }))).toMatchObject({ code: 'task_not_found' });
    expect(await w.run((ops) => ops.tasks.get({ credential: w.other, taskId: 1 }))).toMatchObject({ code: 'task_not_found' });
    expect(await w.run((ops) => ops.tasks.claim({ credential: w.admin, taskId: 1, ifMatch: undefined }))).toMatchObject({
      code: 'if_match_required',
      status: 428,
    });
    expect(await w.run((ops) => ops.tasks.claim({ credential: w.admin, taskId: 1, ifMatch: 'nope' }))).toMatchObject({
      code: 'invalid_if_match',
    });
    expect(await w.run((ops) => ops.tasks.claim({ credential: w.admin, taskId: 1, ifMatch: '"task-1-v9"' }))).toMatchObject({
      code: 'etag_mismatch',
      status: 412,
    });
    const claimed = await w.ok((ops) => ops.tasks.claim({ credential: w.admin, taskId: 1, ifMatch: etag }));
    expect(await w.run((ops) => ops.tasks.claim({ credential: w.admin, taskId: 1, ifMatch: claimed.etag }))).toMatchObject({
      code: 'task_claimed',
    });
    const renew = (token: unknown) => w.run((ops) => ops.tasks.renew({ credential: w.admin, taskId: 1, ifMatch: claimed.etag, token }));
    expect(await renew(undefined)).toMatchObject({ code: 'invalid_token', param: 'token' });
    expect(await renew('00000000-0000-0000-0000-000000000000')).toMatchObject({ code: 'invalid_token' });
    expect(await renew('22222222-2222-4222-8222-222222222222')).toMatchObject({ code: 'claim_not_held' });
    expect(
      await w.run((ops) => ops.tasks.addNote({ credential: w.admin, taskId: 1, ifMatch: claimed.etag, text: 'x' })),
    ).toMatchObject({ code: 'claim_required', param: 'X-Task-Claim' });
    expect(
      await w.run((ops) => ops.tasks.update({ credential: w.admin, taskId: 1, ifMatch: claimed.etag, changes: { status: 'Done' } })),
    ).toMatchObject({ code: 'invalid_transition' });
    expect(
      await w.run((ops) => ops.tasks.update({ credential: w.admin, taskId: 1, ifMatch: claimed.etag, changes: {} })),
    ).toMatchObject({ code: 'invalid_request' });
    // The claim expires after 15 minutes: its token is then lease_expired, and the task is claimable again.
    await w.advance(15 * 60_000);
    expect(await renew(claimed.claim.token)).toMatchObject({ code: 'lease_expired' });
    const read = await w.ok((ops) => ops.tasks.get({ credential: w.admin, taskId: 1 }));
    expect(read.task.claim).toBeNull();
    const again = await w.ok((ops) => ops.tasks.claim({ credential: w.admin, taskId: 1, ifMatch: read.etag }));
    expect(again.claim.fence).toBe(2);
    const released = await w.ok((ops) =>
      ops.tasks.release({ credential: w.admin, taskId: 1, ifMatch: again.etag, token: again.claim.token }),
    );
    expect(released.release).toMatchObject({ object: 'task_claim_release', released: true });
    expect(
      await w.run((ops) => ops.tasks.release({ credential: w.admin, taskId: 1, ifMatch: released.etag, token: again.claim.token })),
    ).toMatchObject({ code: 'claim_not_held' });
    // Notes on an unclaimed task need no token; a stale token for it is refused.
    expect(
      await w.run((ops) =>
        ops.tasks.addNote({ credential: w.admin, taskId: 1, ifMatch: released.etag, claimToken: claimed.claim.token, text: 'x' }),
      ),
    ).toMatchObject({ code: 'lease_expired' });
    await w.ok((ops) => ops.tasks.addNote({ credential: w.admin, taskId: 1, ifMatch: released.etag, text: 'free note' }));
  },
});
