/**
 * JSON the API stores and answers again — a release `observation`, heartbeat `details`, a message
 * `body`, a task `result` — over real HTTP. A body nested deeper than 64 levels is refused with
 * 400 before anything is written (accepted, it used to commit and then make every answer that
 * carried it a 500: the release, every later acquire of the key, the send and every receive of the
 * message, every read of the task); anything the server accepts comes back intact.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SCOPE, SPACE, expectError, expectStatus, startServer, stopServers, type TestServer } from '../support/leasehold-harness.js';

afterEach(stopServers);

/** JSON text of `levels` nested arrays around a number (built as text: `JSON.stringify` of it would overflow). */
const nested = (levels: number) => `${'['.repeat(levels)}1${']'.repeat(levels)}`;

/** A raw JSON request (the body text is sent as is). */
async function send(h: TestServer, method: string, path: string, body: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${h.origin}${path}`, {
    method,
    headers: { authorization: 'Bearer lh_test_admin', 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID(), ...headers },
    body,
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

interface Store {
  /** The field of the body that is stored. */
  field: string;
  /** Sets up what the write needs. */
  prepare(h: TestServer): Promise<void>;
  /** Sends the write with `value` (JSON text) as the stored field. */
  write(h: TestServer, value: string): Promise<{ status: number; body: any }>;
  /** What the reads show afterwards: every answer that would carry the stored value. */
  reads(h: TestServer): Promise<Array<{ status: number; value: unknown }>>;
}

const claims = `/v1/spaces/${SPACE}/claims`;
/** The release store's lease token, per server. */
const tokenOf = new WeakMap<TestServer, string>();

const STORES: Record<string, Store> = {
  'a release observation': {
    field: 'observation',
    async prepare(h) {
      tokenOf.set(h, (await h.acquire('k')).body.token);
    },
    write(h, value) {
      return send(h, 'POST', `${claims}/k/release`, `{"token":"${tokenOf.get(h)}","observation":${value}}`);
    },
    async reads(h) {
      // The next holder's acquire and row show the last release (a refused release left the key
      // held: its holder then releases it without one).
      const held = await h.call('getSpaceClaim', { path: { spaceId: SPACE, key: 'k' } });
      if (held.status === 200) {
        expectStatus(await h.call('releaseSpaceClaim', { path: { spaceId: SPACE, key: 'k' }, json: { token: tokenOf.get(h) } }), 200);
      }
      const next = await h.call('acquireSpaceClaim', { path: { spaceId: SPACE }, json: { key: 'k', scopeId: SCOPE, holder: 'w2', holderSession: 's2' } });
      expectStatus(next, 201);
      const row = await h.call('getSpaceClaim', { path: { spaceId: SPACE, key: 'k' } });
      return [
        { status: 200, value: next.body.previousRelease?.observation ?? null },
        { status: row.status, value: row.body.previousRelease?.observation ?? null },
      ];
    },
  },
  'heartbeat details': {
    field: 'details',
    async prepare(h) {
      await h.acquire('k');
    },
    write(h, value) {
      return send(h, 'POST', '/v1/claims/heartbeat', `{"ttl":30,"details":{"deep":${value}}}`);
    },
    async reads(h) {
      const row = await h.call('getSpaceClaim', { path: { spaceId: SPACE, key: 'k' } });
      return [{ status: row.status, value: row.body.details?.deep ?? null }];
    },
  },
  'a message body': {
    field: 'body',
    prepare: (h) => h.createQueue('billing', 'invoices'),
    write(h, value) {
      return send(h, 'POST', '/v1/spools/billing/queues/invoices/messages', `{"body":${value}}`);
    },
    async reads(h) {
      const received = await h.call('receiveMessage', { path: { spool: 'billing', queue: 'invoices' } });
      return [{ status: received.status, value: received.status === 204 ? null : received.body.body }];
    },
  },
  'a task result': {
    field: 'result',
    async prepare(h) {
      await h.createTask();
    },
    write(h, value) {
      return send(h, 'POST', '/v1/tasks/1/complete', `{"result":${value}}`, { 'if-match': '"task-1-v1"' });
    },
    async reads(h) {
      const task = await h.call('getTask', { path: { taskId: 1 } });
      return [{ status: task.status, value: task.body.result }];
    },
  },
};

describe('JSON the API stores', () => {
  it.each(Object.entries(STORES).flatMap(([name, store]) => [4_100, 64].map((levels) => [name, levels, store] as const)))(
    'refuses %s nested %i levels deep with 400 json_too_deep before writing anything; every later answer is 2xx',
    async (_name, levels, store) => {
      const h = await startServer();
      await store.prepare(h);
      const before = await h.control.stats();
      const answer = await store.write(h, nested(levels));
      expect(answer.status, JSON.stringify(answer.body)).toBe(400);
      expect(answer.body).toMatchObject({ type: 'invalid_request_error', code: 'json_too_deep', param: store.field });
      expect(await h.control.stats(), 'the refused write changed nothing, kept no idempotency record').toEqual(before);
      for (const read of await store.reads(h)) {
        expect(read.status).toBeLessThan(300);
        expect(read.value, 'nothing of the refused value was stored').toBeNull();
      }
    },
  );

  it.each(Object.entries(STORES))('keeps %s nested to the limit and answers it back intact on every read', async (_name, store) => {
    const h = await startServer();
    // The body itself is one level, the stored field's container (details: its object) another.
    const levels = store.field === 'details' ? 62 : 63;
    const value = JSON.parse(nested(levels)) as unknown;
    await store.prepare(h);
    const answer = await store.write(h, nested(levels));
    expect(answer.status, JSON.stringify(answer.body)?.slice(0, 300)).toBeLessThan(300);
    for (const read of await store.reads(h)) expect(read).toEqual({ status: 200, value });
  });

  it.each(Object.entries(STORES))('refuses %s holding a number beyond the range of a double (1e400) with 400 invalid_json', async (_name, store) => {
    const h = await startServer();
    await store.prepare(h);
    const answer = await store.write(h, '[1e400]');
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: 'invalid_json', param: store.field });
  });

  it('refuses any body nested deeper than 64 levels, whatever the operation, even inside a field it would reject', async () => {
    const h = await startServer();
    const task = await h.createTask();
    const answer = await send(h, 'PATCH', `/v1/tasks/${task.id}`, `{"title":"t","zz":${nested(100_000)}}`, { 'if-match': task.etag });
    expect(answer).toMatchObject({ status: 400, body: { code: 'json_too_deep', param: 'zz' } });
    expectStatus(await h.call('getTask', { path: { taskId: task.id } }), 200);
  });

  it('keeps a task answerable: at most 1000 notes (403 plan_limit_exceeded beyond)', async () => {
    const h = await startServer();
    const task = await h.createTask();
    let etag = task.etag;
    for (let i = 0; i < 1000; i++) {
      const note = await h.call('addTaskNote', { path: { taskId: task.id }, headers: { 'If-Match': etag }, json: { text: `note ${i}` } });
      expectStatus(note, 201);
      etag = note.headers.get('etag') as string;
    }
    const refused = await h.call('addTaskNote', { path: { taskId: task.id }, headers: { 'If-Match': etag }, json: { text: 'one too many' } });
    expectError(refused, 403, 'plan_limit_exceeded');
    const read = await h.call('getTask', { path: { taskId: task.id } });
    expect([read.status, read.body.notes.length]).toEqual([200, 1000]);
  }, 30_000);
});
