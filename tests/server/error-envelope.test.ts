/**
 * The error body over real HTTP: one superset envelope that serves a reader of every seed page
 * (canonical members, `kind`, `error: { code, message, requestId }`), built by one builder that
 * the server, its node:http adapter and `@leasehold/msw` share, with a `doc_url` into the
 * reference the server serves.
 */
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { leaseholdError } from '../../packages/msw/src/index.js';
import { ADMIN, READER, SCOPE, SPACE, envelopeProblems, keysWith, startServer, stopServers, type TestServer } from '../support/leasehold-harness.js';
import type { ObservedResponse } from '../support/response-contract.js';

afterEach(stopServers);

type Envelope = {
  type: string;
  code?: string;
  message: string;
  doc_url?: string;
  request_id: string;
  errors?: unknown[];
  kind?: string;
  error: { code?: string; message: string; requestId: string };
};

/** What each seed page's reader reads, and what the canonical reader reads, must agree. */
function expectSuperset(answer: ObservedResponse, where: string): Envelope {
  expect(envelopeProblems(answer), where).toEqual([]);
  const body = answer.body as Envelope;
  const requestId = answer.headers.get('request-id');
  expect(body.request_id, `${where}: request_id`).toBe(requestId);
  expect(body.error, `${where}: error{}`).toEqual(body.code === undefined ? { message: body.message, requestId } : { code: body.code, message: body.message, requestId });
  expect(body.kind, `${where}: kind`).toBe(body.code);
  return body;
}

async function acquireHeld(h: TestServer): Promise<void> {
  await h.acquire('k');
}

describe('every error body is the superset envelope', () => {
  it('for every class of error the server answers, from validation to rate limits and faults', async () => {
    const h = await startServer({ keys: keysWith({ apiKey: 'lh_blocked', accountId: 'acct_demo', blocked: true }) });
    await acquireHeld(h);
    await h.createTask(); // task 1
    await h.control.setRateLimit(READER, 1);
    const auth = { authorization: `Bearer ${ADMIN}` };
    const json = { ...auth, 'content-type': 'application/json' };
    const cases: Array<[string, string, RequestInit, number, string | undefined]> = [
      ['400 several problems', `/v1/spaces/${SPACE}/claims`, { method: 'POST', headers: { ...json, 'idempotency-key': 'i1' }, body: '{"key":""}' }, 400, 'invalid_request'],
      ['400 bad json', '/v1/tasks', { method: 'POST', headers: { ...json, 'idempotency-key': 'i2' }, body: '{' }, 400, 'invalid_json'],
      ['401', '/v1/tasks/1', { headers: { authorization: 'Bearer lh_nobody' } }, 401, 'invalid_api_key'],
      ['403 blocked key, no code', '/v1/tasks/1', { headers: { authorization: 'Bearer lh_blocked' } }, 403, undefined],
      ['404', '/v1/tasks/999', { headers: auth }, 404, 'task_not_found'],
      ['405', '/v1/claims/heartbeat', { headers: auth }, 405, 'method_not_allowed'],
      ['409', `/v1/spaces/${SPACE}/claims`, { method: 'POST', headers: { ...json, 'idempotency-key': 'i3' }, body: JSON.stringify({ key: 'k', scopeId: SCOPE, holder: 'b', holderSession: 's' }) }, 409, 'claim_held'],
      ['415', '/v1/tasks', { method: 'POST', headers: { ...auth, 'content-type': 'text/plain', 'idempotency-key': 'i4' }, body: 'x' }, 415, 'unsupported_media_type'],
      ['412', '/v1/tasks/1/claim', { method: 'POST', headers: { ...auth, 'if-match': '"task-1-v9"', 'idempotency-key': 'i5' } }, 412, 'etag_mismatch'],
      ['428', '/v1/tasks/1/claim', { method: 'POST', headers: { ...auth, 'idempotency-key': 'i6' } }, 428, 'if_match_required'],
      ['the reader key spends its one request', '/v1/tasks/999', { headers: { authorization: `Bearer ${READER}` } }, 404, 'task_not_found'],
      ['429', '/v1/tasks/999', { headers: { authorization: `Bearer ${READER}` } }, 429, 'rate_limited'],
    ];
    for (const [name, path, init, status, code] of cases) {
      const answer = await h.raw(path, init);
      expect(answer.status, name).toBe(status);
      const body = expectSuperset(answer, name);
      expect(body.code, name).toBe(code);
      if (code === undefined) expect(body).not.toHaveProperty('doc_url');
      else expect(body.doc_url, name).toBe(`${h.origin}/docs#section/${code}`);
    }
    // An injected 503, and an unexpected exception answered as 500.
    await h.control.injectFault({ operationId: 'getTask', status: 503, times: 1, retryAfterSeconds: 2 });
    const unavailable = await h.raw('/v1/tasks/1', { headers: auth });
    expect(expectSuperset(unavailable, '503').code).toBe('service_unavailable');
  });

  it('for the requests Node refuses before the pipeline (headers over 16 KiB), built by the same builder', async () => {
    const h = await startServer();
    const port = new URL(h.origin).port;
    const raw = await new Promise<string>((resolve) => {
      const socket = connect(Number(port), '127.0.0.1', () => socket.end(`GET /v1/tasks/1 HTTP/1.1\r\nHost: x\r\nX-Pad: ${'a'.repeat(20_000)}\r\n\r\n`));
      let out = '';
      socket.on('data', (chunk) => (out += chunk.toString('latin1')));
      socket.on('close', () => resolve(out));
      socket.on('error', () => undefined);
    });
    const [head = '', text = ''] = raw.split('\r\n\r\n');
    const headers = new Headers(head.split('\r\n').slice(1).map((line) => line.split(/:\s*/, 2) as [string, string]));
    const body = expectSuperset({ status: 431, headers, body: JSON.parse(text) }, '431');
    expect(body.code).toBe('headers_too_large');
  });

  it('gives leaseholdError (MSW overrides) exactly the shape the server answers', async () => {
    const h = await startServer();
    await acquireHeld(h);
    const served = (await h.raw(`/v1/spaces/${SPACE}/claims`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json', 'idempotency-key': 'm1' },
      body: JSON.stringify({ key: 'k', scopeId: SCOPE, holder: 'b', holderSession: 's' }),
    })).body as Envelope;
    const mocked = leaseholdError(409, { code: 'claim_held', param: 'key', message: served.message, docsUrl: `${h.origin}/docs` });
    const mockedBody = (await mocked.json()) as Envelope;
    const strip = (e: Envelope) => JSON.parse(JSON.stringify(e).replaceAll(e.request_id, '<id>'));
    expect(strip(mockedBody)).toEqual(strip(served));
    expect(mockedBody.request_id).toBe(mocked.headers.get('request-id'));
  });
});

describe('doc_url', () => {
  it("links into the reference served under the mount the request reached, or the hosted one it was given", async () => {
    const h = await startServer();
    const viaApi = (await h.raw('/api/v1/tasks/999', { headers: { authorization: `Bearer ${ADMIN}` } })).body as Envelope;
    expect(viaApi.doc_url).toBe(`${h.origin}/api/docs#section/task_not_found`);
    const hosted = await startServer({ docsUrl: 'https://docs.example.com/leasehold' });
    const answer = (await hosted.raw('/v1/tasks/999', { headers: { authorization: `Bearer ${ADMIN}` } })).body as Envelope;
    expect(answer.doc_url).toBe('https://docs.example.com/leasehold#section/task_not_found');
  });
});
