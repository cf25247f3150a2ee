/** Tasks and task claims over real HTTP: the seed's safe worker loop, ETags, X-Task-Claim and the token table. */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import {
  OTHER,
  READER,
  expectError,
  expectStatus,
  startServer,
  stopServers,
  type Answer,
  type TestServer,
} from '../support/leasehold-harness.js';


/** RFC 3339 in whole seconds, as the server answers timestamps (rounded down). */
const utcSeconds = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
afterEach(stopServers);

const T0 = Date.UTC(2026, 0, 1);
const ZERO_UUID = '00000000-0000-0000-0000-000000000000';
const WRONG_TOKEN = '22222222-2222-4222-8222-222222222222';

function read(h: TestServer, taskId: number, key?: string) {
  return h.call('getTask', { key, path: { taskId } });
}

/** A durable request key, as the seed's C# example makes them (`Guid.ToString("N")`). */
const requestKey = () => randomUUID().replace(/-/g, '');

describe('the task-claims seed page', () => {
  it('runs the safe worker loop: read, claim, check expiry, PATCH InProgress, note, re-read, release', async () => {
    const h = await startServer();
    const { id } = await h.createTask('Rebuild the November report');

    // 1. Read the owned task and its current ETag.
    const detail = await read(h, id);
    expectStatus(detail, 200);
    const etag = detail.headers.get('etag')!;
    expect(etag).toMatch(/^"[^"]+"$/);

    // 2. Claim with If-Match and a persisted unique Idempotency-Key; acquisition takes no body.
    const acquireKey = requestKey();
    const acquired = await h.call('claimTask', {
      path: { taskId: id },
      headers: { 'If-Match': etag, 'Leasehold-Session': 'worker-7' },
      idempotencyKey: acquireKey,
    });
    expectStatus(acquired, 200);
    const token: string = acquired.body.token;
    expect(token).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(acquired.body).toMatchObject({ object: 'task_claim', taskId: id, leaseSeconds: 900 });

    // 3. Confirm the returned UTC expiry is still usable (judged against the server's clock).
    const expiry = Date.parse(acquired.body.expiresUtc);
    const serverNow = Date.parse(acquired.headers.get('date')!);
    expect(expiry - serverNow).toBe(900_000);
    expect(expiry > serverNow + 30_000).toBe(true);

    // 4. Claiming did not start the task: PATCH InProgress explicitly.
    const claimed = await read(h, id);
    expect(claimed.body).toMatchObject({ status: 'Todo', claim: { claimId: acquired.body.claimId, holderSession: 'worker-7' } });
    expect(claimed.body.claim).not.toHaveProperty('token');
    const started = await h.call('updateTask', {
      path: { taskId: id },
      headers: { 'If-Match': claimed.headers.get('etag')!, 'X-Task-Claim': token },
      json: { status: 'InProgress' },
    });
    expectStatus(started, 200);
    expect(started.body.status).toBe('InProgress');

    // 5. Work, renewing before expiry.
    await h.control.advanceClock(10 * 60_000);
    const renewed = await h.call('renewTaskClaim', {
      path: { taskId: id },
      headers: { 'If-Match': started.headers.get('etag')! },
      idempotencyKey: requestKey(),
      json: { token },
    });
    expectStatus(renewed, 200);
    expect(renewed.body.expiresUtc).toBe(utcSeconds(T0 + 10 * 60_000 + 900_000));
    expect(renewed.body).not.toHaveProperty('token');

    // 6–7. Re-read, then report a note with If-Match, Idempotency-Key and X-Task-Claim.
    const fresh = await read(h, id);
    const note = await h.call('addTaskNote', {
      path: { taskId: id },
      headers: { 'If-Match': fresh.headers.get('etag')!, 'X-Task-Claim': token, 'Content-Type': 'application/json; charset=utf-8' },
      idempotencyKey: requestKey(),
      json: { text: 'Draft prepared. Waiting for approval.' },
    });
    expectStatus(note, 201);
    expect(note.body).toMatchObject({ object: 'task_note', taskId: id, text: 'Draft prepared. Waiting for approval.', claimId: acquired.body.claimId });

    // Re-read and release.
    const latest = await read(h, id);
    expect(latest.body.notes).toHaveLength(1);
    const released = await h.call('releaseTaskClaim', {
      path: { taskId: id },
      headers: { 'If-Match': latest.headers.get('etag')! },
      idempotencyKey: requestKey(),
      json: { token },
    });
    expectStatus(released, 200);
    expect(released.body).toEqual({
      object: 'task_claim_release',
      claimId: acquired.body.claimId,
      taskId: id,
      released: true,
      releasedUtc: utcSeconds(T0 + 10 * 60_000),
    });
    expect((await read(h, id)).body).toMatchObject({ status: 'InProgress', claim: null });
  });

  it("accepts the curl acquire: If-Match, Idempotency-Key and --data-raw '{}'", async () => {
    const h = await startServer();
    const { id, etag } = await h.createTask();
    const answer = await h.call('claimTask', { path: { taskId: id }, headers: { 'If-Match': etag }, idempotencyKey: 'example-acquire-001', json: {} });
    expectStatus(answer, 200);
    expect(answer.body.token).toBeTruthy();
  });
});

describe('ETags', () => {
  it('change on patch, note and complete, but not on claim, renew, heartbeat or release (the lease is not the task)', async () => {
    const h = await startServer();
    const created = await h.createTask();
    const seen = [created.etag];
    const step = async (answer: Answer, changes: boolean) => {
      expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(300);
      const etag = answer.headers.get('etag')!;
      if (changes) expect(seen).not.toContain(etag);
      else expect(etag).toBe(seen[seen.length - 1]);
      expect((await read(h, created.id)).headers.get('etag')).toBe(etag);
      seen.push(etag);
      return etag;
    };
    const path = { taskId: created.id };
    const claim = await h.call('claimTask', { path, headers: { 'If-Match': created.etag } });
    let etag = await step(claim, false);
    const token = claim.body.token;
    etag = await step(await h.call('renewTaskClaim', { path, headers: { 'If-Match': etag }, json: { token } }), false);
    expectStatus(await h.call('heartbeatClaims', { json: { ttl: 30 } }), 200);
    expect((await read(h, created.id)).headers.get('etag')).toBe(etag);
    etag = await step(await h.call('updateTask', { path, headers: { 'If-Match': etag, 'X-Task-Claim': token }, json: { title: 'Renamed' } }), true);
    etag = await step(await h.call('addTaskNote', { path, headers: { 'If-Match': etag, 'X-Task-Claim': token }, json: { text: 'n' } }), true);
    etag = await step(await h.call('releaseTaskClaim', { path, headers: { 'If-Match': etag }, json: { token } }), false);
    await step(await h.call('completeTask', { path, headers: { 'If-Match': etag } }), true);
  });

  it('a failed write changes nothing: a stale claim creates no claim, a refused note adds no note', async () => {
    const h = await startServer();
    const { id, etag } = await h.createTask();
    expectError(await h.call('claimTask', { path: { taskId: id }, headers: { 'If-Match': '"task-1-v0"' } }), 412, 'etag_mismatch', 'If-Match');
    const after = await read(h, id);
    expect(after.body.claim).toBeNull();
    expect(after.headers.get('etag')).toBe(etag);
    const claim = await h.claimTask(id, etag);
    expectError(await h.call('addTaskNote', { path: { taskId: id }, headers: { 'If-Match': claim.etag }, json: { text: 'n' } }), 409, 'claim_required');
    const latest = await read(h, id);
    expect(latest.body.notes).toEqual([]);
    expect(latest.headers.get('etag')).toBe(claim.etag);
  });

  it.each([
    ['*', 412],
    ['W/"task-1-v1"', 412],
    ['"task-1-v0", "task-1-v1"', 200],
    ['task-1-v1', 400],
  ] as const)('If-Match %s answers %i (strong comparison; * and weak tags never match)', async (ifMatch, status) => {
    const h = await startServer();
    const { id } = await h.createTask();
    const answer = await h.call('updateTask', { path: { taskId: id }, headers: { 'If-Match': ifMatch }, json: { status: 'Blocked' } });
    expect(answer.status).toBe(status);
    if (status === 400) expect(answer.body).toMatchObject({ code: 'invalid_if_match', param: 'If-Match' });
  });
});

describe('X-Task-Claim on protected writes', () => {
  type Write = 'updateTask' | 'addTaskNote' | 'completeTask';
  const bodies: Record<Write, unknown> = { updateTask: { status: 'Blocked' }, addTaskNote: { text: 'n' }, completeTask: { note: 'done' } };

  async function claimed(h: TestServer) {
    const task = await h.createTask();
    const claim = await h.claimTask(task.id, task.etag);
    return { id: task.id, etag: claim.etag, token: claim.token };
  }

  const cases: Array<[string, number, string | undefined, (h: TestServer) => Promise<{ id: number; etag: string; header?: string }>]> = [
    ['the live token on a claimed task', 200, undefined, async (h) => { const t = await claimed(h); return { ...t, header: t.token }; }],
    ['no header on a claimed task', 409, 'claim_required', async (h) => claimed(h)],
    ['a wrong token on a claimed task', 409, 'claim_not_held', async (h) => ({ ...(await claimed(h)), header: WRONG_TOKEN })],
    ['a malformed token', 400, undefined, async (h) => ({ ...(await claimed(h)), header: 'not-a-uuid' })],
    ['the all-zero UUID', 400, 'invalid_token', async (h) => ({ ...(await claimed(h)), header: ZERO_UUID })],
    ['an expired token', 409, 'lease_expired', async (h) => {
      const t = await claimed(h);
      await h.control.advanceClock(900_001);
      return { ...t, header: t.token };
    }],
    ['a released token', 409, 'claim_not_held', async (h) => {
      const t = await claimed(h);
      const released = await h.call('releaseTaskClaim', { path: { taskId: t.id }, headers: { 'If-Match': t.etag }, json: { token: t.token } });
      return { id: t.id, etag: released.headers.get('etag')!, header: t.token };
    }],
    ['a token on a task never claimed', 409, 'claim_not_held', async (h) => ({ ...(await h.createTask()), header: WRONG_TOKEN })],
    ['no header on an unclaimed task', 200, undefined, async (h) => h.createTask()],
  ];

  describe.each(['updateTask', 'addTaskNote', 'completeTask'] as const)('%s', (operationId) => {
    it.each(cases)('with %s answers %i %s', async (_name, status, code, arrange) => {
      const h = await startServer();
      const { id, etag, header } = await arrange(h);
      const answer = await h.call(operationId, {
        path: { taskId: id },
        headers: { 'If-Match': etag, ...(header === undefined ? {} : { 'X-Task-Claim': header }) },
        json: bodies[operationId],
      });
      const expected = status === 200 && operationId === 'addTaskNote' ? 201 : status;
      if (expected < 300) expectStatus(answer, expected);
      else expectError(answer, expected, code, 'X-Task-Claim');
    });
  });
});

describe('task tokens in renew and release bodies', () => {
  const tokens: Array<[string, number, (token: string) => Record<string, unknown>]> = [
    ['missing', 400, () => ({})],
    ['null', 400, () => ({ token: null })],
    ['empty', 400, () => ({ token: '' })],
    ['all-zero', 400, () => ({ token: ZERO_UUID })],
    ['malformed', 400, () => ({ token: 'task-42-token' })],
    ['wrong', 409, () => ({ token: WRONG_TOKEN })],
    ['expired', 409, (token) => ({ token })],
    ['live', 200, (token) => ({ token })],
  ];

  describe.each(['renewTaskClaim', 'releaseTaskClaim'] as const)('%s', (operationId) => {
    it.each(tokens)('token %s answers %i', async (name, status, body) => {
      const h = await startServer();
      const task = await h.createTask();
      const claim = await h.claimTask(task.id, task.etag);
      if (name === 'expired') await h.control.advanceClock(900_001);
      const answer = await h.call(operationId, { path: { taskId: task.id }, headers: { 'If-Match': claim.etag }, json: body(claim.token) });
      expect(answer.status, JSON.stringify(answer.body)).toBe(status);
      if (status === 400) expect(answer.body.param).toBe('token');
      if (status === 409) expect(answer.body.code).toBe(name === 'expired' ? 'lease_expired' : 'claim_not_held');
    });

    // The spec (renewTaskClaim; releaseTaskClaim: "token rules as for renew") names the code of
    // every malformed token: 400 `invalid_token`.
    it.each(tokens.filter(([, status]) => status === 400))('token %s is 400 invalid_token, as the spec says', async (_name, _status, body) => {
      const h = await startServer();
      const task = await h.createTask();
      const claim = await h.claimTask(task.id, task.etag);
      const answer = await h.call(operationId, { path: { taskId: task.id }, headers: { 'If-Match': claim.etag }, json: body(claim.token) });
      expectError(answer, 400, 'invalid_token', 'token');
    });
  });
});

describe('claims', () => {
  it('completing with the live token releases the claim in the same write', async () => {
    const h = await startServer();
    const task = await h.createTask();
    const claim = await h.claimTask(task.id, task.etag, { 'Leasehold-Session': 'w1' });
    await h.control.advanceClock(60_000);
    const done = await h.call('completeTask', {
      path: { taskId: task.id },
      headers: { 'If-Match': claim.etag, 'X-Task-Claim': claim.token },
      json: { result: { pdf: 'reports/2026-11.pdf' }, note: 'Published.' },
    });
    expectStatus(done, 200);
    expect(done.body).toMatchObject({
      status: 'Done',
      claim: null,
      result: { pdf: 'reports/2026-11.pdf' },
      completedUtc: utcSeconds(T0 + 60_000),
      notes: [{ text: 'Published.', claimId: claim.claim.claimId }],
    });
    const etag = done.headers.get('etag')!;
    expectError(await h.call('renewTaskClaim', { path: { taskId: task.id }, headers: { 'If-Match': etag }, json: { token: claim.token } }), 409, 'claim_not_held');
    // Released, not lost: the heartbeat has nothing to report.
    expect((await h.call('heartbeatClaims', { json: { ttl: 30 } })).body.results).toEqual([]);
    expectError(await h.call('claimTask', { path: { taskId: task.id }, headers: { 'If-Match': etag } }), 409, 'task_completed');
    expectError(await h.call('completeTask', { path: { taskId: task.id }, headers: { 'If-Match': etag } }), 409, 'task_completed');
  });

  it('lets another worker claim an expired task with a larger fence', async () => {
    const h = await startServer();
    const task = await h.createTask();
    const first = await h.claimTask(task.id, task.etag);
    expectError(await h.call('claimTask', { path: { taskId: task.id }, headers: { 'If-Match': first.etag } }), 409, 'task_claimed');
    await h.control.advanceClock(900_000);
    const afterExpiry = await read(h, task.id);
    expect(afterExpiry.body.claim).toBeNull();
    const second = await h.claimTask(task.id, afterExpiry.headers.get('etag')!);
    expect(second.claim.fence).toBeGreaterThan(first.claim.fence);
    expectError(await h.call('renewTaskClaim', { path: { taskId: task.id }, headers: { 'If-Match': second.etag }, json: { token: first.token } }), 409, 'lease_expired');
  });

  it('replays a claim retried with its Idempotency-Key, token included, instead of claiming twice', async () => {
    const h = await startServer();
    const task = await h.createTask();
    const options = { path: { taskId: task.id }, headers: { 'If-Match': task.etag }, idempotencyKey: 'example-acquire-001' };
    const first = await h.call('claimTask', options);
    const again = await h.call('claimTask', options);
    expectStatus(again, 200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
  });

  it('creates tasks as Todo at version 1 and refuses a PATCH to Done', async () => {
    const h = await startServer();
    const created = await h.call('createTask', { json: { title: 'T', description: 'D' } });
    expect(created.body).toMatchObject({ object: 'task', status: 'Todo', version: 1, claim: null, notes: [], result: null, completedUtc: null, title: 'T', description: 'D' });
    expectError(await h.call('updateTask', { path: { taskId: created.body.id }, headers: { 'If-Match': created.headers.get('etag')! }, json: { status: 'Done' } }), 400, undefined, 'status');
  });
});

describe('credentials', () => {
  it('lets the read-only key read but not write, and hides tasks from another account (404)', async () => {
    const h = await startServer();
    const task = await h.createTask();
    expectStatus(await read(h, task.id, READER), 200);
    expectError(await h.call('claimTask', { key: READER, path: { taskId: task.id }, headers: { 'If-Match': task.etag } }), 403, 'permission_denied');
    expectError(await h.call('createTask', { key: READER, json: { title: 't' } }), 403, 'permission_denied');
    expectError(await read(h, task.id, OTHER), 404, 'task_not_found');
    expectError(await h.call('claimTask', { key: OTHER, path: { taskId: task.id }, headers: { 'If-Match': task.etag } }), 404, 'task_not_found');
    // Each account numbers its own tasks.
    expect((await h.call('createTask', { key: OTHER, json: { title: 'theirs' } })).body.id).toBe(1);
  });
});

describe('timestamps', () => {
  it('answers expiresUtc and every task timestamp in whole seconds (as the task page shows), never later than the real expiry', async () => {
    const h = await startServer();
    await h.control.advanceClock(1_750); // the server clock at T0 + 1.75 s
    const task = await h.createTask();
    const claim = await h.claimTask(task.id, task.etag);
    expect(claim.claim.expiresUtc).toBe('2026-01-01T00:15:01Z'); // the lease really ends at 00:15:01.750
    const read = await h.call('getTask', { path: { taskId: task.id } });
    for (const value of [read.body.createdUtc, read.body.updatedUtc, read.body.claim.expiresUtc]) expect(value).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    await h.control.advanceClock(900_000 - 1); // 1 ms before the real expiry, after the one shown: still held
    expectStatus(await h.call('renewTaskClaim', { path: { taskId: task.id }, headers: { 'If-Match': claim.etag }, json: { token: claim.token } }), 200);
  });
});

describe('listing tasks', () => {
  /** Every task of a walk with `query`, page by page, and the pages' sizes. */
  async function walk(h: TestServer, query: Record<string, string | number> = {}, key?: string) {
    const ids: number[] = [];
    const sizes: number[] = [];
    let cursor: string | undefined;
    do {
      const page = await h.call('listTasks', { key, query: { ...query, ...(cursor === undefined ? {} : { cursor }) } });
      expectStatus(page, 200);
      ids.push(...page.body.data.map((task: { id: number }) => task.id));
      sizes.push(page.body.data.length);
      cursor = page.body.nextCursor ?? undefined;
    } while (cursor !== undefined);
    return { ids, sizes };
  }

  it('lists the account’s tasks in id order, page by page with limit and cursor, filtered by status', async () => {
    const h = await startServer();
    for (let i = 1; i <= 7; i++) await h.createTask(`task ${i}`);
    // Task 2 is claimed and InProgress, task 5 Blocked, task 6 Done.
    const two = await h.claimTask(2, '"task-2-v1"');
    const patched = await h.call('updateTask', { path: { taskId: 2 }, headers: { 'If-Match': two.etag, 'X-Task-Claim': two.token }, json: { status: 'InProgress' } });
    expectStatus(patched, 200);
    expectStatus(await h.call('updateTask', { path: { taskId: 5 }, headers: { 'If-Match': '"task-5-v1"' }, json: { status: 'Blocked' } }), 200);
    expectStatus(await h.call('completeTask', { path: { taskId: 6 }, headers: { 'If-Match': '"task-6-v1"' }, json: {} }), 200);

    expect(await walk(h, { limit: 3 })).toEqual({ ids: [1, 2, 3, 4, 5, 6, 7], sizes: [3, 3, 1] });
    expect((await walk(h, { status: 'Todo', limit: 2 })).ids).toEqual([1, 3, 4, 7]);
    expect((await walk(h, { status: 'InProgress' })).ids).toEqual([2]);
    expect((await walk(h, { status: 'Blocked' })).ids).toEqual([5]);
    expect((await walk(h, { status: 'Done' })).ids).toEqual([6]);
    const first = await h.call('listTasks', { query: { limit: 1 } });
    expect(first.body).toMatchObject({ object: 'list', data: [{ object: 'task', id: 1, status: 'Todo', claim: null }] });
    // The claim shows without its token.
    const claimed = await h.call('listTasks', { query: { status: 'InProgress' } });
    expect(claimed.body.data[0].claim).toMatchObject({ claimId: two.claim.claimId });
    expect(JSON.stringify(claimed.body)).not.toContain(two.token);
  });

  it('never skips or repeats a task that keeps its status while tasks are created and change between pages', async () => {
    const h = await startServer();
    for (let i = 1; i <= 10; i++) await h.createTask(`task ${i}`);
    const seen: number[] = [];
    let cursor: string | undefined;
    let round = 0;
    do {
      const page = await h.call('listTasks', { query: { status: 'Todo', limit: 3, ...(cursor === undefined ? {} : { cursor }) } });
      seen.push(...page.body.data.map((task: { id: number }) => task.id));
      cursor = page.body.nextCursor ?? undefined;
      round++;
      // Between pages: a new task appears, and an already listed one is Blocked and back.
      await h.createTask(`late ${round}`);
      const listed = seen[0] as number;
      const task = await read(h, listed);
      const blocked = await h.call('updateTask', { path: { taskId: listed }, headers: { 'If-Match': task.headers.get('etag')! }, json: { status: 'Blocked' } });
      await h.call('updateTask', { path: { taskId: listed }, headers: { 'If-Match': blocked.headers.get('etag')! }, json: { status: 'Todo' } });
    } while (cursor !== undefined);
    expect(new Set(seen).size, 'no task listed twice').toBe(seen.length);
    for (let id = 1; id <= 10; id++) expect(seen).toContain(id);
  });

  it('shows another account none of them, and refuses a cursor it did not make', async () => {
    const h = await startServer();
    await h.createTask();
    expect((await h.call('listTasks', { key: OTHER })).body).toEqual({ object: 'list', data: [], nextCursor: null });
    expect((await h.call('listTasks', { key: READER })).body.data).toHaveLength(1);
    expectError(await h.call('listTasks', { query: { cursor: 'nonsense' } }), 400, 'invalid_request', 'cursor');
    expectError(await h.call('listTasks', { query: { status: 'Paused' } }), 400, 'invalid_request', 'status');
  });
});
