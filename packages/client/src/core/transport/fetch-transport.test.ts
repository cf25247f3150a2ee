import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConflictError } from '../errors/api-error.js';
import { AbortError, ConnectionError, TimeoutError } from '../errors/connection-errors.js';
import { FetchTransport, type FetchLike } from './fetch-transport.js';
import { request, type RequestConfig } from '../request/request.js';
import { RetryPolicy } from '../retry/retry-policy.js';
import type { Transport } from './transport.js';

afterEach(() => {
  vi.unstubAllGlobals();
});

/** A fetch handler that records requests and answers from a script (the last answer repeats). */
function handler(answers: Array<(request: Request) => Response | Promise<Response>>) {
  const seen: Request[] = [];
  const fetch: FetchLike = async (url, init) => {
    const req = new Request(url, init);
    seen.push(req);
    const answer = answers[Math.min(seen.length - 1, answers.length - 1)];
    if (!answer) throw new Error('no answer scripted');
    return answer(req);
  };
  return { fetch, seen };
}

const config = (transport: Transport, extra: Partial<RequestConfig> = {}): RequestConfig => ({
  baseUrl: 'https://api.leasehold.test/api',
  apiKey: 'lh_test_admin',
  transport,
  retryPolicy: new RetryPolicy({ random: () => 0 }),
  sleep: async () => {},
  ...extra,
});

const jsonResponse = (status: number, body: unknown, headers: Record<string, string> = {}) => () =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

describe('FetchTransport', () => {
  it('sends method, URL, headers and body; returns lowercase headers and text', async () => {
    const { fetch, seen } = handler([jsonResponse(201, { ok: true }, { 'Request-Id': 'req_1', 'X-Multi': 'a' })]);
    const res = await new FetchTransport({ fetch }).send({ method: 'POST', url: 'https://h/v1/x', headers: { 'Content-Type': 'application/json' }, body: '{"a":1}' });
    expect(res).toEqual({ status: 201, headers: { 'content-type': 'application/json', 'request-id': 'req_1', 'x-multi': 'a' }, bodyText: '{"ok":true}' });
    expect(seen[0]?.method).toBe('POST');
    expect(await seen[0]?.text()).toBe('{"a":1}');
  });

  it('network failure → ConnectionError with the cause', async () => {
    const cause = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    const transport = new FetchTransport({ fetch: async () => { throw new TypeError('fetch failed', { cause }); } });
    const error = await transport.send({ method: 'GET', url: 'https://h/', headers: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toBe('Connection error: fetch failed: connect ECONNREFUSED 127.0.0.1:1');
    expect((error as Error).cause).toBeInstanceOf(TypeError);
  });

  it('a handler answering Response.error() (a dropped response) → ConnectionError', async () => {
    const transport = new FetchTransport({ fetch: async () => Response.error() });
    const error = await transport.send({ method: 'POST', url: 'https://h/', headers: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
  });

  it('abort → AbortError', async () => {
    const transport = new FetchTransport({
      fetch: (_url, init) => new Promise((_, reject) => init.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')))),
    });
    const controller = new AbortController();
    const pending = transport.send({ method: 'GET', url: 'https://h/', headers: {}, signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(AbortError);
  });

  it('given globalThis.fetch, looks it up at call time (MSW patches it later)', async () => {
    const transport = new FetchTransport({ fetch: globalThis.fetch });
    const patched = handler([jsonResponse(200, { patched: true })]);
    vi.stubGlobal('fetch', patched.fetch);
    const res = await transport.send({ method: 'GET', url: 'https://h/', headers: {} });
    expect(res.bodyText).toBe('{"patched":true}');
    expect(patched.seen).toHaveLength(1);
  });

  it('with no fetch given, also uses globalThis.fetch at call time', async () => {
    const transport = new FetchTransport();
    const patched = handler([jsonResponse(200, {})]);
    vi.stubGlobal('fetch', patched.fetch);
    await transport.send({ method: 'GET', url: 'https://h/', headers: {} });
    expect(patched.seen).toHaveLength(1);
  });

  it('a caller function is kept even if the global changes', async () => {
    const mine = handler([jsonResponse(200, { mine: true })]);
    const transport = new FetchTransport({ fetch: mine.fetch });
    vi.stubGlobal('fetch', () => Promise.reject(new Error('not me')));
    expect((await transport.send({ method: 'GET', url: 'https://h/', headers: {} })).bodyText).toBe('{"mine":true}');
  });
});

describe('request with an injected fetch', () => {
  it('retries in-flight conflicts with one key, then maps the final 409', async () => {
    const { fetch, seen } = handler([
      jsonResponse(409, { type: 'conflict_error', code: 'idempotency_in_flight', message: 'running' }),
      jsonResponse(409, { error: { code: 'claim_held', message: 'Held.', requestId: 'req_n' } }),
    ]);
    const error = await request(config(new FetchTransport({ fetch })), { method: 'POST', path: '/v1/spaces/s/claims', body: { key: 'k' } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConflictError);
    expect(error).toMatchObject({ code: 'claim_held', requestId: 'req_n' });
    expect(seen.map((r) => r.url)).toEqual(['https://api.leasehold.test/api/v1/spaces/s/claims', 'https://api.leasehold.test/api/v1/spaces/s/claims']);
    expect(new Set(seen.map((r) => r.headers.get('idempotency-key'))).size).toBe(1);
    expect(seen[0]?.headers.get('authorization')).toBe('Bearer lh_test_admin');
  });

  it('times out a fetch that never settles, even one that ignores its signal', async () => {
    const transport = new FetchTransport({ fetch: () => new Promise<Response>(() => {}) });
    const error = await request(config(transport, { timeoutMs: 20 }), { method: 'GET', path: '/v1/x', maxRetries: 0 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
  });

  it('wraps whatever a custom transport throws into ConnectionError', async () => {
    const transport: Transport = { send: async () => { throw 'socket hang up'; } };
    const error = await request(config(transport), { method: 'GET', path: '/v1/x', maxRetries: 0 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
  });
});
