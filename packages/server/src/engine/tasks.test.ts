import { describe, expect, it } from 'vitest';
import { codeOf, errorOf, setup } from './test-fixtures.js';

type Fixture = ReturnType<typeof setup>;

function newTask(f: Fixture) {
  return f.engine.tasks.create({ credential: f.admin, title: 'Rebuild the November report', description: 'Recompute.' });
}

function claimed(f: Fixture) {
  const { task, etag } = newTask(f);
  const { claim, etag: claimedEtag } = f.engine.tasks.claim({ credential: f.admin, taskId: task.id, ifMatch: etag, holderSession: 's' });
  return { taskId: task.id, token: claim.token as string, etag: claimedEtag, claim };
}

describe('Tasks: create and read', () => {
  it('numbers tasks per account from 1 and tags them with an ETag', () => {
    const f = setup();
    const first = newTask(f);
    expect(first.etag).toBe('"task-1-v1"');
    expect(first.task).toEqual({
      object: 'task',
      id: 1,
      title: 'Rebuild the November report',
      description: 'Recompute.',
      status: 'Todo',
      version: 1,
      claim: null,
      attempts: 0,
      stalled: false,
      availableUtc: null,
      lastClaim: null,
      notes: [],
      result: null,
      createdUtc: '2026-11-29T15:00:00Z',
      updatedUtc: '2026-11-29T15:00:00Z',
      completedUtc: null,
    });
    expect(newTask(f).task.id).toBe(2);
    expect(f.engine.tasks.create({ credential: f.other, title: 'x' }).task.id).toBe(1);
    expect(f.engine.tasks.get({ credential: f.reader, taskId: 2 }).etag).toBe('"task-2-v1"');
    expect(codeOf(() => f.engine.tasks.get({ credential: f.other, taskId: 2 }))).toBe('task_not_found');
    expect(codeOf(() => f.engine.tasks.create({ credential: f.admin, title: '' }))).toBe('invalid_request');
  });
});

describe('Tasks: claim', () => {
  it('claims for 15 minutes with a UUID token, keeping the ETag (the seed page sends one If-Match to claim, renew and release)', () => {
    const f = setup();
    const { claim, etag } = claimed(f);
    expect(claim).toMatchObject({ object: 'task_claim', taskId: 1, fence: 1, leaseSeconds: 900, expiresUtc: '2026-11-29T15:15:00Z' });
    expect(claim.token).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(etag).toBe('"task-1-v1"');
    expect(f.engine.tasks.get({ credential: f.admin, taskId: 1 }).etag).toBe('"task-1-v1"');
    const read = f.engine.tasks.get({ credential: f.admin, taskId: 1 }).task;
    expect(read.claim).toEqual({ claimId: claim.claimId, fence: 1, expiresUtc: claim.expiresUtc, holderSession: 's', details: null });
    expect(JSON.stringify(read)).not.toContain(claim.token as string);
  });

  it.each([
    ['missing If-Match', undefined, 'if_match_required'],
    ['empty If-Match', '', 'if_match_required'],
    ['stale If-Match', '"task-1-v0"', 'etag_mismatch'],
    ['weak If-Match', 'W/"task-1-v1"', 'etag_mismatch'],
    ['star', '*', 'etag_mismatch'],
    ['unquoted If-Match', 'task-1-v1', 'invalid_if_match'],
  ])('refuses a %s and creates no claim', (_name, ifMatch, code) => {
    const f = setup();
    newTask(f);
    expect(codeOf(() => f.engine.tasks.claim({ credential: f.admin, taskId: 1, ifMatch }))).toBe(code);
    expect(f.engine.tasks.get({ credential: f.admin, taskId: 1 })).toMatchObject({ etag: '"task-1-v1"', task: { claim: null } });
    expect(f.engine.stats().held).toBe(0);
  });

  it('accepts the current ETag inside a list', () => {
    const f = setup();
    newTask(f);
    expect(codeOf(() => f.engine.tasks.claim({ credential: f.admin, taskId: 1, ifMatch: '"nope", "task-1-v1"' }))).toBe('no error');
  });

  it('refuses a live claim and a Done task; an expired claim frees the task', () => {
    const f = setup();
    const { etag } = claimed(f);
    expect(codeOf(() => f.engine.tasks.claim({ credential: f.admin, taskId: 1, ifMatch: etag }))).toBe('task_claimed');
    f.clock.advance(900_000);
    const again = f.engine.tasks.claim({ credential: f.admin, taskId: 1, ifMatch: etag });
    expect(again.claim.fence).toBe(2);
    f.engine.tasks.complete({ credential: f.admin, taskId: 1, ifMatch: again.etag, claimToken: again.claim.token });
    const done = f.engine.tasks.get({ credential: f.admin, taskId: 1 }).etag;
    expect(codeOf(() => f.engine.tasks.claim({ credential: f.admin, taskId: 1, ifMatch: done }))).toBe('task_completed');
  });
});

describe('Tasks: renew and release', () => {
  it('renews for 15 minutes from now without changing the ETag', () => {
    const f = setup();
    const { token, etag } = claimed(f);
    f.clock.advance(600_000);
    const renewed = f.engine.tasks.renew({ credential: f.admin, taskId: 1, ifMatch: etag, token });
    expect(renewed.etag).toBe(etag);
    expect(renewed.claim.expiresUtc).toBe('2026-11-29T15:25:00Z');
    expect(renewed.claim.token).toBeUndefined();
  });

  it.each([
    [undefined],
    [null],
    [''],
    ['00000000-0000-0000-0000-000000000000'],
    ['not-a-uuid'],
    [42],
  ])('refuses token %j with invalid_token', (token) => {
    const f = setup();
    const { etag } = claimed(f);
    const error = errorOf(() => f.engine.tasks.renew({ credential: f.admin, taskId: 1, ifMatch: etag, token }));
    expect([error.code, error.param]).toEqual(['invalid_token', 'token']);
  });

  it('tells a wrong, expired and released token apart', () => {
    const f = setup();
    const { token, etag } = claimed(f);
    const renew = (t: string, ifMatch = etag) => codeOf(() => f.engine.tasks.renew({ credential: f.admin, taskId: 1, ifMatch, token: t }));
    expect(renew('22222222-2222-4222-8222-222222222222')).toBe('claim_not_held');
    expect(renew(token.toUpperCase())).toBe('no error');
    f.clock.advance(900_000);
    expect(renew(token)).toBe('lease_expired');
    const next = f.engine.tasks.claim({ credential: f.admin, taskId: 1, ifMatch: etag });
    const released = f.engine.tasks.release({ credential: f.admin, taskId: 1, ifMatch: next.etag, token: next.claim.token });
    expect(released.release).toEqual({
      object: 'task_claim_release',
      claimId: next.claim.claimId,
      taskId: 1,
      released: true,
      releasedUtc: '2026-11-29T15:15:00Z',
    });
    expect(released.etag, 'claim and release keep the ETag').toBe(etag);
    expect(renew(next.claim.token as string, released.etag)).toBe('claim_not_held');
    expect(f.engine.tasks.get({ credential: f.admin, taskId: 1 }).task.claim).toBeNull();
  });
});

describe('Tasks: protected writes', () => {
  it('needs the live token on a claimed task', () => {
    const f = setup();
    const { token, etag, claim } = claimed(f);
    const note = (claimToken?: string) =>
      f.engine.tasks.addNote({ credential: f.admin, taskId: 1, ifMatch: etag, claimToken, text: 'Draft prepared.' });
    expect(codeOf(() => note())).toBe('claim_required');
    expect(codeOf(() => note('22222222-2222-4222-8222-222222222222'))).toBe('claim_not_held');
    expect(errorOf(() => note('zero')).param).toBe('X-Task-Claim');
    const written = note(token);
    expect(written.etag).toBe('"task-1-v2"');
    expect(written.task.notes).toEqual([
      { object: 'task_note', id: expect.stringMatching(/^note_/), taskId: 1, text: 'Draft prepared.', createdUtc: '2026-11-29T15:00:00Z', claimId: claim.claimId },
    ]);
  });

  it('refuses a token for an unclaimed task, accepts none', () => {
    const f = setup();
    const { etag } = newTask(f);
    const update = (claimToken?: string) =>
      f.engine.tasks.update({ credential: f.admin, taskId: 1, ifMatch: etag, claimToken, changes: { status: 'InProgress' } });
    expect(codeOf(() => update('22222222-2222-4222-8222-222222222222'))).toBe('claim_not_held');
    expect(update().task).toMatchObject({ status: 'InProgress', version: 2 });
  });

  it('validates updates; Done goes through complete', () => {
    const f = setup();
    const { etag } = newTask(f);
    const update = (changes: object) => codeOf(() => f.engine.tasks.update({ credential: f.admin, taskId: 1, ifMatch: etag, changes }));
    expect(update({})).toBe('invalid_request');
    expect(update({ status: 'Done' })).toBe('invalid_transition');
    expect(update({ status: 'Paused' })).toBe('invalid_request');
    expect(update({ title: '' })).toBe('invalid_request');
    expect(update({ title: 'New', description: 'D' })).toBe('no error');
  });

  it('completes with the live token, releasing the claim in the same write', () => {
    const f = setup();
    const { token, etag } = claimed(f);
    f.clock.advance(60_000);
    const done = f.engine.tasks.complete({ credential: f.admin, taskId: 1, ifMatch: etag, claimToken: token, result: { pdf: 'r.pdf' }, note: 'Published.' });
    expect(done.etag).toBe('"task-1-v2"');
    expect(done.task).toMatchObject({ status: 'Done', claim: null, result: { pdf: 'r.pdf' }, completedUtc: '2026-11-29T15:01:00Z' });
    expect(done.task.notes.map((n) => n.text)).toEqual(['Published.']);
    expect(codeOf(() => f.engine.tasks.complete({ credential: f.admin, taskId: 1, ifMatch: done.etag }))).toBe('task_completed');
    expect(codeOf(() => f.engine.tasks.update({ credential: f.admin, taskId: 1, ifMatch: done.etag, changes: { title: 'x' } }))).toBe(
      'invalid_transition',
    );
    expect(f.engine.heartbeat({ credential: f.admin, ttl: 30 }).results).toEqual([]);
    expect(f.engine.stats().held).toBe(0);
  });

  it('changes nothing when a write fails', () => {
    const f = setup();
    const { etag } = claimed(f);
    const before = f.engine.tasks.get({ credential: f.admin, taskId: 1 });
    codeOf(() => f.engine.tasks.complete({ credential: f.admin, taskId: 1, ifMatch: etag, note: 'x' }));
    codeOf(() => f.engine.tasks.addNote({ credential: f.admin, taskId: 1, ifMatch: '"task-1-v1"', text: 'x' }));
    codeOf(() => f.engine.tasks.update({ credential: f.admin, taskId: 1, ifMatch: etag, changes: { status: 'Done' } }));
    expect(f.engine.tasks.get({ credential: f.admin, taskId: 1 })).toEqual(before);
  });

  it('reports an expired task claim lost to the heartbeat once', () => {
    const f = setup();
    const { claim } = claimed(f);
    f.clock.advance(900_000);
    expect(f.engine.heartbeat({ credential: f.admin, ttl: 30 }).results).toEqual([{ claimId: claim.claimId, status: 'lost' }]);
    expect(f.engine.heartbeat({ credential: f.admin, ttl: 30 }).results).toEqual([]);
  });
});

describe('Tasks: list', () => {
  it('ends a page early at about 4 MiB (after at least one task), so a page of large tasks stays answerable', () => {
    const f = setup();
    const text = 'x'.repeat(20_000);
    for (let t = 0; t < 5; t++) {
      let { task, etag } = newTask(f);
      for (let n = 0; n < 110; n++) ({ etag } = f.engine.tasks.addNote({ credential: f.admin, taskId: task.id, ifMatch: etag, text }));
      task = f.engine.tasks.get({ credential: f.admin, taskId: task.id }).task;
      expect(JSON.stringify(task).length).toBeGreaterThan(2_000_000);
    }
    const sizes: number[] = [];
    let cursor: string | undefined;
    do {
      const page = f.engine.tasks.list({ credential: f.admin, limit: 100, cursor });
      sizes.push(page.data.length);
      expect(JSON.stringify(page).length).toBeLessThan(7 * 1024 * 1024);
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
    expect(sizes).toEqual([2, 2, 1]);
  });
});
