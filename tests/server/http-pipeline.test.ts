/**
 * What every operation shares, over real HTTP: idempotency, credentials and accounts, rate
 * limits, faults, the base path, routing and body handling.
 */
import { readFileSync } from 'node:fs';
import { request as undiciRequest } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ADMIN,
  DEMO_ACCOUNT,
  OTHER,
  READER,
  SCOPE,
  SPACE,
  envelopeProblems,
  expectError,
  expectStatus,
  keysWith,
  startServer,
  stopServers,
  type CallOptions,
  type TestServer,
} from '../support/leasehold-harness.js';

afterEach(stopServers);

const acquireBody = (key = 'reports/2026-11') => ({ key, scopeId: SCOPE, holder: 'worker-1', holderSession: 'sess-1' });
const acquire = (h: TestServer, options: CallOptions = {}) =>
  h.call('acquireSpaceClaim', { path: { spaceId: SPACE }, json: acquireBody(), ...options });

describe('Idempotency-Key', () => {
  it('replays the first answer, token included, with Idempotent-Replayed: true', async () => {
    const h = await startServer();
    const first = await acquire(h, { idempotencyKey: 'acquire-1' });
    expectStatus(first, 201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    await h.control.advanceClock(1_000);
    const again = await acquire(h, { idempotencyKey: 'acquire-1' });
    expectStatus(again, 201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('request-id')).not.toBe(first.headers.get('request-id'));
    // Still one lease: the key is held once, by the first claim.
    expect((await h.call('getSpaceClaim', { path: { spaceId: SPACE, key: 'reports/2026-11' } })).body.claimId).toBe(first.body.claimId);
  });

  it('does not store a conflict: the same key runs again once the key it wanted is free (claim_held is not replayed)', async () => {
    const h = await startServer();
    const holder = await acquire(h);
    const refused = await acquire(h, { idempotencyKey: 'acquire-2', json: { ...acquireBody(), holder: 'worker-2' } });
    expectError(refused, 409, 'claim_held');
    expectStatus(await h.call('releaseSpaceClaim', { path: { spaceId: SPACE, key: 'reports/2026-11' }, json: { token: holder.body.token } }), 200);
    const retried = await acquire(h, { idempotencyKey: 'acquire-2', json: { ...acquireBody(), holder: 'worker-2' } });
    expectStatus(retried, 201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    // The success is stored: a further repeat replays it.
    const replayed = await acquire(h, { idempotencyKey: 'acquire-2', json: { ...acquireBody(), holder: 'worker-2' } });
    expect([replayed.status, replayed.headers.get('idempotent-replayed'), replayed.body.claimId]).toEqual([201, 'true', retried.body.claimId]);
  });

  it("does not store a 412: the task page's fixed key claims once the If-Match is current", async () => {
    const h = await startServer();
    const task = await h.createTask();
    const claim = (etag: string) =>
      h.call('claimTask', { path: { taskId: task.id }, headers: { 'If-Match': etag }, idempotencyKey: 'example-acquire-001' });
    expectError(await claim('"task-42-plan-7"'), 412, 'etag_mismatch');
    const claimed = await claim(task.etag);
    expectStatus(claimed, 200);
    expect(claimed.headers.get('idempotent-replayed')).toBeNull();
    expect((await claim(task.etag)).headers.get('idempotent-replayed')).toBe('true');
  });

  const claimedTask = async (h: TestServer) => {
    const task = await h.createTask();
    await h.claimTask(task.id, task.etag);
  };
  const none = async () => undefined;
  it.each([
    ['400 validation failure', none, (h: TestServer) => acquire(h, { idempotencyKey: 'k', json: { ...acquireBody(), leaseSeconds: 1 } }), 400],
    ['401 unknown API key', none, (h: TestServer) => acquire(h, { idempotencyKey: 'k', key: 'lh_nobody' }), 401],
    ['403 missing permission', none, (h: TestServer) => acquire(h, { idempotencyKey: 'k', key: READER }), 403],
    ['404 unknown task', none, (h: TestServer) => h.call('claimTask', { path: { taskId: 99 }, headers: { 'If-Match': '"task-99-v1"' }, idempotencyKey: 'k' }), 404],
    ['409 task_claimed', claimedTask, (h: TestServer) => h.call('claimTask', { path: { taskId: 1 }, headers: { 'If-Match': '"task-1-v1"' }, idempotencyKey: 'k' }), 409],
    ['503 (injected)', none, async (h: TestServer) => {
      await h.control.injectFault({ operationId: 'acquireSpaceClaim', status: 503, times: 1 });
      return acquire(h, { idempotencyKey: 'k' });
    }, 503],
  ] as const)('does not store a %s: no record is kept under the key, so a retry runs again', async (_name, prepare, send, status) => {
    const h = await startServer();
    await prepare(h);
    const records = (await h.control.stats()).idempotencyRecords;
    const answer = await send(h);
    expect(answer.status).toBe(status);
    expect(answer.headers.get('idempotent-replayed')).toBeNull();
    expect((await h.control.stats()).idempotencyRecords, 'no record was stored for the failure').toBe(records);
    expect((await send(h)).headers.get('idempotent-replayed'), 'the retry ran again').toBeNull();
  });

  it('accepts the quoted structured-field form of the IETF draft as the same key', async () => {
    const h = await startServer();
    const first = await acquire(h, { idempotencyKey: 'abc-123' });
    const quoted = await acquire(h, { idempotencyKey: '"abc-123"' });
    expect(quoted.headers.get('idempotent-replayed')).toBe('true');
    expect(quoted.body).toEqual(first.body);
    const escaped = await h.call('createTask', { json: { title: 't' }, idempotencyKey: '"say \\"hi\\""' });
    const plain = await h.call('createTask', { json: { title: 't' }, idempotencyKey: 'say "hi"' });
    expect(plain.headers.get('idempotent-replayed')).toBe('true');
    expect(plain.body).toEqual(escaped.body);
  });

  it('keeps keys per credential: the same key from another credential is a new request', async () => {
    const h = await startServer();
    const mine = await h.call('createTask', { json: { title: 'mine' }, idempotencyKey: 'shared-key' });
    const theirs = await h.call('createTask', { key: OTHER, json: { title: 'theirs' }, idempotencyKey: 'shared-key' });
    expectStatus(theirs, 201);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.title).toBe('theirs');
    expect(mine.body.title).toBe('mine');
  });

  it('answers 409 idempotency_key_reused for the same key on another path or body', async () => {
    const h = await startServer();
    await acquire(h, { idempotencyKey: 'k-1' });
    expectError(await acquire(h, { idempotencyKey: 'k-1', json: acquireBody('another') }), 409, 'idempotency_key_reused', 'Idempotency-Key');
    expectError(await h.call('createTask', { json: { title: 't' }, idempotencyKey: 'k-1' }), 409, 'idempotency_key_reused');
  });

  it.each([
    ['256 characters', 'k'.repeat(256)],
    ['a non-ASCII character', 'clé'],
    ['an empty quoted key', '""'],
  ])('rejects a key of %s with 400 naming Idempotency-Key', async (_name, idempotencyKey) => {
    const h = await startServer();
    const answer = await h.call('createTask', { json: { title: 't' }, headers: { 'Idempotency-Key': idempotencyKey }, idempotencyKey: null });
    expectError(answer, 400, undefined, 'Idempotency-Key');
  });

  it('requires the key where the operation says so (400 naming Idempotency-Key)', async () => {
    const h = await startServer();
    expectError(await acquire(h, { idempotencyKey: null }), 400, 'invalid_request', 'Idempotency-Key');
    expectError(await h.call('createTask', { json: { title: 't' }, idempotencyKey: null }), 400, 'invalid_request', 'Idempotency-Key');
  });

  it('does not store an injected 503: a retry with the same key runs afresh', async () => {
    const h = await startServer();
    await h.control.injectFault({ operationId: 'createTask', status: 503, times: 1 });
    expectError(await h.call('createTask', { json: { title: 't' }, idempotencyKey: 'retry-me' }), 503, 'service_unavailable');
    const retried = await h.call('createTask', { json: { title: 't' }, idempotencyKey: 'retry-me' });
    expectStatus(retried, 201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
  });
});

describe('dropped responses', () => {
  it('commits the write, drops the connection, and replays the answer to a retry with the same key', async () => {
    const h = await startServer();
    await h.control.injectFault({ operationId: 'acquireSpaceClaim', dropResponse: true, times: 1 });
    const options = { path: { spaceId: SPACE }, json: acquireBody(), idempotencyKey: 'uncertain-acquire' };
    await expect(h.send('acquireSpaceClaim', options)).rejects.toThrow();
    // The write happened: the key is held.
    const holder = await h.call('getSpaceClaim', { path: { spaceId: SPACE, key: 'reports/2026-11' } });
    expectStatus(holder, 200);
    const retried = await h.call('acquireSpaceClaim', options);
    expectStatus(retried, 201);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(retried.body.claimId).toBe(holder.body.claimId);
    expect(retried.body.token).toMatch(/^lht_/);
    expectStatus(await h.call('renewSpaceClaim', { path: { spaceId: SPACE, key: 'reports/2026-11' }, json: { token: retried.body.token } }), 200);
  });

  it('creates one task when a dropped create is retried with its key', async () => {
    const h = await startServer();
    await h.control.injectFault({ operationId: 'createTask', dropResponse: true, times: 1 });
    await expect(h.send('createTask', { json: { title: 't' }, idempotencyKey: 'create-1' })).rejects.toThrow();
    const retried = await h.call('createTask', { json: { title: 't' }, idempotencyKey: 'create-1' });
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(retried.body.id).toBe(1);
    expectError(await h.call('getTask', { path: { taskId: 2 } }), 404, 'task_not_found');
  });
});

describe('injected faults', () => {
  it('hits the next `times` matching requests only', async () => {
    const h = await startServer();
    await h.control.injectFault({ operationId: 'getTask', status: 503, times: 2, retryAfterSeconds: 1 });
    const task = await h.createTask();
    for (let i = 0; i < 2; i++) {
      const answer = await h.call('getTask', { path: { taskId: task.id } });
      expectError(answer, 503, 'service_unavailable');
      expect(answer.headers.get('retry-after')).toBe('1');
    }
    expectStatus(await h.call('getTask', { path: { taskId: task.id } }), 200);
    expect(await h.control.faults()).toEqual([]);
  });

  it('matches rules by pathPrefix and method', async () => {
    const h = await startServer();
    await h.createQueue('billing', 'invoices');
    await h.control.injectFault({ pathPrefix: '/v1/spools/billing/queues', method: 'POST', status: 500, times: 1 });
    expectStatus(await h.call('putQueue', { path: { spool: 'billing', queue: 'more' }, json: { leaseTimeoutSeconds: 5 } }), 201);
    expectStatus(await h.call('createTask', { json: { title: 't' } }), 201);
    expectError(await h.call('sendMessage', { path: { spool: 'billing', queue: 'invoices' }, json: { body: 1 } }), 500, 'internal_error');
    expectStatus(await h.call('sendMessage', { path: { spool: 'billing', queue: 'invoices' }, json: { body: 1 } }), 201);
  });

  it('delays the answer by latencyMs (through the injectable sleep) without changing it', async () => {
    const waits: number[] = [];
    const h = await startServer({ sleep: async (ms) => void waits.push(ms) });
    await h.control.injectFault({ operationId: 'createTask', latencyMs: 250, times: 1 });
    expectStatus(await h.call('createTask', { json: { title: 't' } }), 201);
    expect(waits).toEqual([250]);
  });
});

describe('credentials', () => {
  it.each([
    ['no Authorization header', undefined, 'missing_api_key'],
    ['another scheme', 'Basic bGhfdGVzdF9hZG1pbjo=', 'invalid_api_key'],
    ['an unknown key', 'Bearer lh_test_nobody', 'invalid_api_key'],
  ])('answers 401 to %s', async (_name, authorization, code) => {
    const h = await startServer();
    const answer = await h.call('createTask', { key: null, headers: authorization ? { Authorization: authorization } : {}, json: { title: 't' } });
    expectError(answer, 401, code);
  });

  it('answers 401 expired_api_key to an expired key, and accepts it again once renewed', async () => {
    const h = await startServer();
    await h.control.expireKey(ADMIN);
    expectError(await h.call('listSpaceClaims', { path: { spaceId: SPACE } }), 401, 'expired_api_key');
    await h.control.expireKey(ADMIN, false);
    expectStatus(await h.call('listSpaceClaims', { path: { spaceId: SPACE } }), 200);
  });

  it('answers 401 expired_api_key once a key passes its expiresAt on the server clock', async () => {
    const h = await startServer({ keys: keysWith({ apiKey: 'lh_test_shortlived', accountId: DEMO_ACCOUNT, expiresAt: Date.UTC(2026, 0, 1, 0, 1) }) });
    expectStatus(await h.call('listSpaceClaims', { key: 'lh_test_shortlived', path: { spaceId: SPACE } }), 200);
    await h.control.advanceClock(60_000);
    expectError(await h.call('listSpaceClaims', { key: 'lh_test_shortlived', path: { spaceId: SPACE } }), 401, 'expired_api_key');
  });

  it('answers 402 account_suspended to every key of a suspended account, and only to it', async () => {
    const h = await startServer();
    await h.control.suspendAccount(DEMO_ACCOUNT);
    expectError(await h.call('listSpaceClaims', { path: { spaceId: SPACE } }), 402, 'account_suspended');
    expectError(await h.call('listSpaceClaims', { key: READER, path: { spaceId: SPACE } }), 402, 'account_suspended');
    expectStatus(await h.call('listSpaceClaims', { key: OTHER, path: { spaceId: SPACE } }), 200);
    await h.control.suspendAccount(DEMO_ACCOUNT, false);
    expectStatus(await h.call('listSpaceClaims', { path: { spaceId: SPACE } }), 200);
  });

  it('answers 403 with no code to a blocked key, and permission_denied to the read-only key on writes', async () => {
    const h = await startServer();
    await h.control.blockKey(READER);
    expectError(await h.call('listSpaceClaims', { key: READER, path: { spaceId: SPACE } }), 403, null);
    await h.control.blockKey(READER, false);
    expectStatus(await h.call('listSpaceClaims', { key: READER, path: { spaceId: SPACE } }), 200);
    expectError(await acquire(h, { key: READER }), 403, 'permission_denied');
  });

  it("answers 404, never 403, for another account's resources", async () => {
    const h = await startServer();
    const claim = await acquire(h);
    const task = await h.createTask();
    await h.createQueue('billing', 'invoices');
    const message = await h.sendMessage('billing', 'invoices');
    const { lease } = await h.receive('billing', 'invoices');
    const answers = [
      await h.call('getSpaceClaim', { key: OTHER, path: { spaceId: SPACE, key: claim.body.key } }),
      await h.call('getTask', { key: OTHER, path: { taskId: task.id } }),
      await h.call('updateTask', { key: OTHER, path: { taskId: task.id }, headers: { 'If-Match': task.etag }, json: { status: 'Blocked' } }),
      await h.call('putQueue', { key: OTHER, path: { spool: 'billing', queue: 'invoices' }, json: { leaseTimeoutSeconds: 1 } }),
      await h.call('sendMessage', { key: OTHER, path: { spool: 'billing', queue: 'invoices' }, json: { body: 1 } }),
      await h.call('discardMessage', { key: OTHER, path: { spool: 'billing', handle: message.handle } }),
      await h.call('ackMessage', { key: OTHER, path: { spool: 'billing' }, headers: { 'Spooler-Lease': lease } }),
      await h.call('heartbeatClaims', { key: OTHER, json: { ttl: 30, claimId: claim.body.claimId } }),
    ];
    for (const answer of answers) expect(answer.status, `${answer.operationId} ${JSON.stringify(answer.body)}`).toBe(404);
  });
});

describe('rate limits', () => {
  it('answers 429 with Retry-After in whole seconds (not in the body), per credential, and admits after the wait', async () => {
    const h = await startServer();
    await h.control.setRateLimit(ADMIN, 2);
    const path = { spaceId: SPACE };
    expectStatus(await h.call('listSpaceClaims', { path }), 200);
    expectStatus(await h.call('listSpaceClaims', { path }), 200);
    const limited = await h.call('listSpaceClaims', { path });
    expectError(limited, 429, 'rate_limited');
    const retryAfter = limited.headers.get('retry-after')!;
    expect(retryAfter).toMatch(/^[1-9][0-9]*$/);
    expect(Object.keys(limited.body).sort()).toEqual(['code', 'doc_url', 'error', 'kind', 'message', 'request_id', 'type']);
    expect(JSON.stringify(limited.body)).not.toMatch(/retry/i);
    // Another credential of the same account has its own budget.
    expectStatus(await h.call('listSpaceClaims', { key: READER, path }), 200);
    await h.control.advanceClock(Number(retryAfter) * 1000);
    expectStatus(await h.call('listSpaceClaims', { path }), 200);
  });

  it('rounds a fractional wait up to whole seconds', async () => {
    const h = await startServer();
    await h.control.setRateLimit(ADMIN, 1);
    await h.call('listSpaceClaims', { path: { spaceId: SPACE } });
    await h.control.advanceClock(100);
    const limited = await h.call('listSpaceClaims', { path: { spaceId: SPACE } });
    expectError(limited, 429, 'rate_limited');
    expect(limited.headers.get('retry-after')).toBe('1');
  });
});

describe('routes', () => {
  it('serves the bundled spec at /openapi.json', async () => {
    const h = await startServer();
    const response = await fetch(`${h.origin}/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('request-id')).toBeTruthy();
    expect(response.headers.get('date')).toBeTruthy();
    const bundled = JSON.parse(readFileSync(new URL('../../spec/dist/openapi.json', import.meta.url), 'utf8'));
    const served = await response.json();
    expect({ ...served, servers: bundled.servers }).toEqual(bundled);
  });

  it('names in /openapi.json the server the request reached: host, port and mount', async () => {
    const h = await startServer({ basePath: ['/', '/api', '/edge/v0'] });
    const serversOf = async (path: string) =>
      ((await (await fetch(`${h.origin}${path}`)).json()) as { servers: Array<{ url: string }> }).servers.map((s) => s.url);
    expect(await serversOf('/openapi.json')).toEqual([h.origin]);
    expect(await serversOf('/api/openapi.json')).toEqual([`${h.origin}/api`]);
    expect(await serversOf('/edge/v0/openapi.json')).toEqual([`${h.origin}/edge/v0`]);
    // The Host header the client used (a name instead of the address, another port behind a proxy).
    // (fetch never sends a Host of its own choosing: undici.request does.)
    const viaHost = await undiciRequest(`${h.origin}/api/openapi.json`, { headers: { host: 'leasehold.internal:8443' } });
    expect(((await viaHost.body.json()) as { servers: Array<{ url: string }> }).servers).toEqual([
      expect.objectContaining({ url: 'http://leasehold.internal:8443/api' }),
    ]);
  });

  it('answers an unknown route with a 404 route_not_found envelope', async () => {
    const h = await startServer();
    for (const path of ['/nope', '/v1', '/v1/spaces/activity', '/v2/claims/heartbeat', `/v1/spaces/${SPACE}/claims/a/b/c/d`]) {
      const answer = await h.raw(path, { headers: { authorization: `Bearer ${ADMIN}` } });
      expect(answer.status, path).toBe(404);
      expect((answer.body as { code: string }).code).toBe('route_not_found');
      expect(envelopeProblems(answer), path).toEqual([]);
    }
  });

  it('answers a wrong method with 405 and Allow', async () => {
    const h = await startServer();
    const answer = await h.raw('/v1/claims/heartbeat', { method: 'GET', headers: { authorization: `Bearer ${ADMIN}` } });
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('POST');
    expect(envelopeProblems(answer, 'invalid_request_error')).toEqual([]);
    const tasks = await h.raw('/v1/tasks/1', { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN}` } });
    expect(tasks.status).toBe(405);
    expect(tasks.headers.get('allow')?.split(', ').sort()).toEqual(['GET', 'HEAD', 'PATCH']);
    expect(envelopeProblems(tasks, 'invalid_request_error')).toEqual([]);
  });

  it('serves the whole API under / and /api by default, one state behind both', async () => {
    const h = await startServer();
    const viaRoot = await acquire(h);
    expectStatus(viaRoot, 201);
    const viaApi = await h.raw(`/api/v1/spaces/${SPACE}/claims/${encodeURIComponent('reports/2026-11')}`, { headers: { authorization: `Bearer ${ADMIN}` } });
    expect([viaApi.status, (viaApi.body as { claimId: string }).claimId]).toEqual([200, viaRoot.body.claimId]);
    expect((await h.raw('/api/openapi.json')).status).toBe(200);
    const miss = await h.raw('/apiv1/claims/heartbeat', { method: 'POST', headers: { authorization: `Bearer ${ADMIN}` } });
    expect(miss.status).toBe(404);
  });

  it('mounts the API under a base path: /api/v1 works, /v1 and /api/v10 are 404 envelopes', async () => {
    const h = await startServer({ basePath: '/api' });
    const claim = await acquire(h);
    expectStatus(claim, 201);
    expectStatus(await h.call('heartbeatClaims', { json: { ttl: 30 } }), 200);
    const spec = await fetch(`${h.origin}/api/openapi.json`);
    expect(spec.status).toBe(200);
    await spec.arrayBuffer();
    for (const path of ['/v1/claims/heartbeat', '/api/v10/claims/heartbeat', '/apiv1/claims/heartbeat', '/api']) {
      const answer = await h.raw(path, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
        body: '{"ttl":30}',
      });
      expect(answer.status, path).toBe(404);
      expect(envelopeProblems(answer), path).toEqual([]);
    }
  });

  it('gives every answer a distinct Request-Id', async () => {
    const h = await startServer();
    const ids = new Set<string>();
    for (let i = 0; i < 5; i++) ids.add((await h.call('listSpaceClaims', { path: { spaceId: SPACE } })).headers.get('request-id')!);
    ids.add((await h.raw('/nope')).headers.get('request-id')!);
    expect(ids.size).toBe(6);
  });
});

describe('request bodies', () => {
  const heartbeat = (h: TestServer, body: string | Uint8Array<ArrayBuffer>, contentType?: string) =>
    h.call('heartbeatClaims', { body, headers: contentType ? { 'Content-Type': contentType } : {} });

  it('answers malformed JSON with 400 invalid_json, never echoing the body', async () => {
    const h = await startServer();
    const answer = await heartbeat(h, '{"ttl": 30, "claimId": "lht_secret_token_value"', 'application/json');
    expectError(answer, 400, 'invalid_json');
    expect(answer.body.message).not.toContain('lht_secret');
  });

  it('answers bytes that are not UTF-8 with 400', async () => {
    const h = await startServer();
    const bytes = new Uint8Array([...new TextEncoder().encode('{"ttl":"3'), 0xff, 0xfe, ...new TextEncoder().encode('0"}')]);
    expectError(await heartbeat(h, bytes, 'application/json'), 400, 'invalid_json');
  });

  it.each([['text/plain'], ['application/x-www-form-urlencoded'], ['multipart/form-data; boundary=x'], [undefined]])(
    'answers a body sent as %s with 415',
    async (contentType) => {
      const h = await startServer();
      const answer = await h.call('heartbeatClaims', {
        body: '{"ttl":30}',
        headers: contentType === undefined ? {} : { 'Content-Type': contentType },
      });
      // fetch labels a string body text/plain when no type is given.
      expectError(answer, 415, 'unsupported_media_type');
    },
  );

  it('accepts application/json with a charset and +json media types', async () => {
    const h = await startServer();
    expectStatus(await heartbeat(h, '{"ttl":30}', 'application/json; charset=utf-8'), 200);
    expectStatus(await heartbeat(h, '{"ttl":30}', 'application/merge-patch+json'), 200);
  });

  it('answers a body over 1 MiB with 413, and accepts one just under', async () => {
    const h = await startServer();
    const over = JSON.stringify({ ttl: 30, details: { pad: 'x'.repeat(1024 * 1024) } });
    expectError(await heartbeat(h, over, 'application/json'), 413, 'body_too_large');
    const under = `{"ttl":30}${' '.repeat(1024 * 1024 - 10)}`;
    expect(new TextEncoder().encode(under).length).toBe(1024 * 1024);
    expectStatus(await heartbeat(h, under, 'application/json'), 200);
  });

  it('names an unknown body field in param, and sends errors only when there is more than one problem', async () => {
    const h = await startServer();
    const answer = await acquire(h, { json: { ...acquireBody(), holdr: 'typo' } });
    expectError(answer, 400, 'invalid_request', 'holdr');
    expect(answer.body).not.toHaveProperty('errors');
  });

  it('lists every problem in errors, the first one in param', async () => {
    const h = await startServer();
    const answer = await acquire(h, { json: { key: '', scopeId: 'run-1', holder: 'w' } });
    expectError(answer, 400, 'invalid_request');
    const params = (answer.body.errors as Array<{ param: string }>).map((e) => e.param);
    expect(params).toEqual(expect.arrayContaining(['key', 'scopeId', 'holderSession']));
    expect(params[0]).toBe(answer.body.param);
  });

  it('answers a required body that is missing with 400', async () => {
    const h = await startServer();
    expectError(await h.call('createTask', {}), 400, 'invalid_request');
  });
});
