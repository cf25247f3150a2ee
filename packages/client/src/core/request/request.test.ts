import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { VERSION } from '../version.js';
import { BadRequestError, ConflictError, InternalServerError, RateLimitError, ServiceUnavailableError } from '../errors/api-error.js';
import { AbortError, ConnectionError, TimeoutError } from '../errors/connection-errors.js';
import { FileIdempotencyStore } from '../idempotency/file-idempotency-store.js';
import { MemoryIdempotencyStore } from '../idempotency/memory-idempotency-store.js';
import { ManualClock } from '../monotonic-clock.js';
import { Redactor } from '../redact.js';
import { request, type RequestConfig } from './request.js';
import { RetryPolicy } from '../retry/retry-policy.js';
import { hang, json, startTestHttpServer, type Responder, type TestHttpServer } from '../../internal/test-http-server.js';
import { UndiciTransport } from '../transport/undici-transport.js';
import type { Transport, TransportRequest } from '../transport/transport.js';

const API_KEY = 'lh_test_admin_s3cr3t';
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

/** A server plus a config whose sleeps are recorded, not waited. */
async function setup(responders: Responder[], overrides: Partial<RequestConfig> = {}) {
  const server = await startTestHttpServer(responders);
  const transport = new UndiciTransport();
  cleanups.push(() => server.close(), () => transport.close());
  const sleeps: number[] = [];
  const config: RequestConfig = {
    baseUrl: `${server.url}/api`,
    apiKey: API_KEY,
    transport,
    retryPolicy: new RetryPolicy({ random: () => 0.5 }),
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...overrides,
  };
  return { server, config, sleeps };
}

const CLAIM = { object: 'claim', claimId: 'clm_1', token: 'lht_abcdef123456', fence: 1 };

describe('request over node:http', () => {
  it('GET: auth, client headers, base URL prefix, query, parsed JSON, request id; no idempotency key', async () => {
    const { server, config } = await setup([json(200, { object: 'list', data: [] }, { 'request-id': 'req_abc' })]);
    const res = await request(config, { method: 'GET', path: '/v1/spaces/s/claims', query: { prefix: 'a/b', limit: 5, cursor: undefined } });
    expect(res).toMatchObject({ status: 200, data: { object: 'list', data: [] }, requestId: 'req_abc', replayed: false, attempts: 1, idempotencyKey: undefined });
    const [seen] = server.seen;
    expect(seen?.url).toBe('/api/v1/spaces/s/claims?prefix=a%2Fb&limit=5');
    expect(seen?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(seen?.headers['user-agent']?.startsWith(`leasehold-client/${VERSION} (node/`)).toBe(true);
    expect(seen?.headers['leasehold-client']).toBe(`leasehold-typescript/${VERSION}`);
    expect(seen?.headers.accept).toBe('application/json');
    expect(seen?.headers['content-type']).toBeUndefined();
    expect(seen?.headers['idempotency-key']).toBeUndefined();
  });

  it('POST: JSON body, extra headers, a generated Idempotency-Key; callers cannot override Authorization', async () => {
    const { server, config } = await setup([json(201, CLAIM)]);
    const res = await request(config, {
      method: 'POST',
      path: '/v1/spaces/s/claims',
      body: { key: 'k' },
      headers: { 'Leasehold-Session': 'sess_1', authorization: 'Bearer nope', 'idempotency-key': 'nope' },
    });
    const seen = server.seen[0];
    expect(seen?.body).toBe('{"key":"k"}');
    expect(seen?.headers['content-type']).toBe('application/json');
    expect(seen?.headers['leasehold-session']).toBe('sess_1');
    expect(seen?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(seen?.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.idempotencyKey).toBe(seen?.headers['idempotency-key']);
    expect(res.data).toEqual(CLAIM);
  });

  it('retries 500 and 503 with the same Idempotency-Key, backing off with jitter', async () => {
    const { server, config, sleeps } = await setup([json(500, { type: 'api_error', message: 'boom' }), json(503, { type: 'unavailable_error', message: 'busy' }), json(201, CLAIM)]);
    const res = await request(config, { method: 'POST', path: '/v1/x', body: {} });
    expect(res.attempts).toBe(3);
    expect(sleeps).toEqual([250, 500]);
    const keys = server.seen.map((s) => s.headers['idempotency-key']);
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toBe(res.idempotencyKey);
  });

  it('gives up after maxRetries with the last typed error', async () => {
    const { server, config } = await setup([json(503, { type: 'unavailable_error', code: 'service_unavailable', message: 'busy' })]);
    const error = await request(config, { method: 'POST', path: '/v1/x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(error).toMatchObject({ status: 503, code: 'service_unavailable', requestId: 'req_503' });
    expect(server.seen).toHaveLength(3);
  });

  it('honours maxRetries per call and per config', async () => {
    const { server, config } = await setup([json(500, { type: 'api_error', message: 'x' })], { maxRetries: 4, retryPolicy: undefined });
    await expect(request(config, { method: 'GET', path: '/v1/x', maxRetries: 1 })).rejects.toBeInstanceOf(InternalServerError);
    expect(server.seen).toHaveLength(2);
  });

  it('429 waits for Retry-After', async () => {
    const { config, sleeps } = await setup([json(429, { type: 'rate_limit_error', code: 'rate_limited', message: 'slow' }, { 'retry-after': '2' }), json(200, {})]);
    await request(config, { method: 'GET', path: '/v1/x' });
    expect(sleeps).toEqual([2000]);
  });

  it('a 429 that outlasts its retries surfaces as RateLimitError with retryAfterMs', async () => {
    const { config } = await setup([json(429, { type: 'rate_limit_error', code: 'rate_limited', message: 'slow' }, { 'retry-after': '3' })]);
    const error = await request(config, { method: 'GET', path: '/v1/x', maxRetries: 0 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfterMs).toBe(3000);
  });

  it('retries 409 idempotency_in_flight, never claim_held', async () => {
    const inFlight = json(409, { type: 'conflict_error', code: 'idempotency_in_flight', message: 'running' });
    const held = json(409, { type: 'conflict_error', code: 'claim_held', message: 'held' });
    const { server, config } = await setup([inFlight, held]);
    const error = await request(config, { method: 'POST', path: '/v1/x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConflictError);
    expect((error as ConflictError).code).toBe('claim_held');
    expect(server.seen).toHaveLength(2);
  });

  it('204 gives undefined data; Idempotent-Replayed is reported', async () => {
    const { config } = await setup([
      (_req, res) => {
        res.writeHead(204, { 'idempotent-replayed': 'true', 'spooler-lease-expires-at': '2026-11-29T15:16:00Z' });
        res.end();
      },
    ]);
    const res = await request(config, { method: 'POST', path: '/v1/spools/s/renew' });
    expect(res).toMatchObject({ status: 204, data: undefined, replayed: true });
    expect(res.headers['spooler-lease-expires-at']).toBe('2026-11-29T15:16:00Z');
  });

  it('a 2xx that is not JSON is an UnexpectedResponseError (invalid_response_body), not retried', async () => {
    const { server, config } = await setup([(_req, res) => res.writeHead(200, { 'content-type': 'text/html', 'request-id': 'req_html' }).end('<html>hi</html>')]);
    await expect(request(config, { method: 'GET', path: '/v1/x' })).rejects.toMatchObject({
      name: 'UnexpectedResponseError',
      status: 200,
      code: 'invalid_response_body',
      requestId: 'req_html',
      rawBody: '<html>hi</html>',
    });
    expect(server.seen).toHaveLength(1);
  });

  it('a 2xx that `accept` refuses is an UnexpectedResponseError naming the problem, not retried, and keeps the operation key', async () => {
    const { server, config } = await setup([(_req, res) => res.writeHead(201, { 'content-type': 'application/json' }).end('null')]);
    const store = new MemoryIdempotencyStore();
    const accept = ({ data }: { data: unknown }) => (data === null ? 'The acquire answer carries no JSON object.' : undefined);
    await expect(
      request({ ...config, idempotencyStore: store }, { method: 'POST', path: '/v1/x', body: {}, operationId: 'op', accept }),
    ).rejects.toMatchObject({ name: 'UnexpectedResponseError', status: 201, code: 'unexpected_response_shape', message: expect.stringContaining('carries no JSON object') });
    expect(server.seen).toHaveLength(1);
    expect(await store.get('op')).toBe(server.seen[0]?.headers['idempotency-key']);
  });

  it('per-attempt timeout → TimeoutError, retried with the same key', async () => {
    // A transport that never answers, recording what the client sends: counting what a server
    // received would race the 50 ms timeout on a busy machine (the second attempt can time out
    // before the server's handler runs).
    const sent: TransportRequest[] = [];
    const { config, sleeps } = await setup([], { timeoutMs: 50 });
    const silent: Transport = { send: (req) => (sent.push(req), new Promise<never>(() => {})) };
    const error = await request({ ...config, transport: silent }, { method: 'POST', path: '/v1/x', maxRetries: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ scope: 'attempt', timeoutMs: 50 });
    expect(sent).toHaveLength(2);
    expect(sent[0]?.headers['Idempotency-Key'] ?? sent[0]?.headers['idempotency-key']).toBeDefined();
    expect(sent[0]?.headers).toEqual(sent[1]?.headers);
    expect(sleeps).toHaveLength(1);
  });

  it('an overall deadline cuts the attempt short → TimeoutError(deadline), not retried', async () => {
    const { server, config } = await setup([hang]);
    const error = await request(config, { method: 'GET', path: '/v1/x', totalTimeoutMs: 60 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'TimeoutError', scope: 'deadline', timeoutMs: 60 });
    expect(server.seen).toHaveLength(1);
  });

  it('does not start a wait that would pass the deadline (monotonic clock)', async () => {
    const clock = new ManualClock(1_000);
    const { server, config, sleeps } = await setup([json(503, { type: 'unavailable_error', message: 'x' }, { 'retry-after': '5' })], {
      clock,
      maxRetries: 10,
      retryPolicy: undefined,
      sleep: async (ms) => {
        sleeps.push(ms);
        clock.advance(ms);
      },
    });
    await expect(request(config, { method: 'GET', path: '/v1/x', totalTimeoutMs: 12_000 })).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(sleeps).toEqual([5000, 5000]);
    expect(server.seen).toHaveLength(3);
  });

  it('an absolute deadlineAt already passed sends nothing', async () => {
    const clock = new ManualClock(5_000);
    const { server, config } = await setup([json(200, {})], { clock });
    await expect(request(config, { method: 'GET', path: '/v1/x', deadlineAt: 5_000 })).rejects.toMatchObject({ name: 'TimeoutError', scope: 'deadline' });
    expect(server.seen).toHaveLength(0);
  });

  it('caller abort mid-request → AbortError, not TimeoutError, never retried', async () => {
    const { server, config } = await setup([hang], { timeoutMs: 10_000 });
    const controller = new AbortController();
    const pending = request(config, { method: 'POST', path: '/v1/x', signal: controller.signal }).catch((e: unknown) => e);
    await server.arrived(1);
    controller.abort();
    const error = await pending;
    expect(error).toBeInstanceOf(AbortError);
    expect(error).not.toBeInstanceOf(TimeoutError);
    expect(server.seen).toHaveLength(1);
  });

  it('caller abort cancels a sleeping backoff', async () => {
    const controller = new AbortController();
    const { config } = await setup([json(503, { type: 'unavailable_error', message: 'x' })], {
      retryPolicy: new RetryPolicy({ baseDelayMs: 60_000, random: () => 0.99 }),
      sleep: undefined,
      hooks: { onRetryScheduled: () => setTimeout(() => controller.abort(), 5) },
    });
    const started = performance.now();
    await expect(request(config, { method: 'GET', path: '/v1/x', signal: controller.signal })).rejects.toBeInstanceOf(AbortError);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('an already aborted signal sends nothing', async () => {
    const { server, config } = await setup([json(200, {})]);
    await expect(request(config, { method: 'GET', path: '/v1/x', signal: AbortSignal.abort() })).rejects.toBeInstanceOf(AbortError);
    expect(server.seen).toHaveLength(0);
  });

  it('connection refused → ConnectionError after retries', async () => {
    const { server, config, sleeps } = await setup([json(200, {})]);
    await server.close();
    const error = await request(config, { method: 'GET', path: '/v1/x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toMatch(/ECONNREFUSED/);
    expect(sleeps).toEqual([250, 500]);
  });

  it('never shows the API key or lease tokens in errors or logs', async () => {
    const taskToken = '22222222-2222-4222-8222-222222222222';
    const learned = 'opaque_spool_lease_0123456789';
    const echo: Responder = (req, res) => {
      res.writeHead(400, { 'content-type': 'application/json', 'x-echo-auth': req.headers.authorization ?? '' });
      res.end(JSON.stringify({ type: 'invalid_request_error', message: `Rejected ${req.headers.authorization} with ${req.body} and ${learned}`, errors: [{ message: `key ${API_KEY}` }] }));
    };
    const lines: string[] = [];
    const log = (...args: unknown[]): void => void lines.push(JSON.stringify(args));
    const redactor = new Redactor();
    const { config } = await setup([(_req, res) => res.writeHead(200, { 'spooler-lease': learned, 'content-type': 'application/json' }).end('{"object":"message"}'), echo], {
      redactor,
      logger: { debug: log, info: log, warn: log, error: log },
    });
    await request(config, { method: 'POST', path: '/v1/spools/s/receive' });
    const error = (await request(config, { method: 'POST', path: '/v1/tasks/1/claim/renew', body: { token: taskToken } }).catch((e: unknown) => e)) as BadRequestError;
    expect(error).toBeInstanceOf(BadRequestError);
    const shown = JSON.stringify({ message: error.message, string: String(error), stack: error.stack, errors: error.errors, raw: error.rawBody, headers: error.headers, lines });
    for (const secret of [API_KEY, 's3cr3t', taskToken, learned]) expect(shown).not.toContain(secret);
    expect(error.message).toContain('[REDACTED]');
    expect(lines.length).toBeGreaterThan(0);
  });

  it('metrics hooks see every attempt, its duration and each scheduled retry', async () => {
    const events: string[] = [];
    const { config } = await setup([json(500, { type: 'api_error', message: 'x' }), json(200, {})], {
      hooks: {
        onAttemptStart: (e) => events.push(`start ${e.attempt}`),
        onAttemptEnd: (e) => events.push(`end ${e.attempt} ${e.status} ${typeof e.durationMs} ${e.error?.name ?? '-'}`),
        onRetryScheduled: (e) => events.push(`retry after ${e.attempt} in ${e.delayMs}`),
      },
    });
    await request(config, { method: 'GET', path: '/v1/x' });
    expect(events).toEqual(['start 1', 'end 1 500 number InternalServerError', 'retry after 1 in 250', 'start 2', 'end 2 200 number -']);
  });

  it('a throwing hook does not break the request', async () => {
    const { config } = await setup([json(200, { ok: true })], { hooks: { onAttemptStart: () => { throw new Error('metrics down'); } } });
    await expect(request(config, { method: 'GET', path: '/v1/x' })).resolves.toMatchObject({ data: { ok: true } });
  });
});

describe('durable idempotency keys', () => {
  it('stores the key before sending and keeps it after a 2xx (the same operationId then sends the same key)', async () => {
    const store = new MemoryIdempotencyStore();
    const storedAtArrival: Array<string | undefined> = [];
    const { server, config } = await setup(
      [
        async (req, res) => {
          storedAtArrival.push(await store.get('op-1'));
          json(201, CLAIM)(req, res);
        },
      ],
      { idempotencyStore: store },
    );
    const res = await request(config, { method: 'POST', path: '/v1/x', operationId: 'op-1' });
    expect(storedAtArrival).toEqual([server.seen[0]?.headers['idempotency-key']]);
    expect(res.idempotencyKey).toBe(storedAtArrival[0]);
    expect(await store.get('op-1')).toBe(res.idempotencyKey);
  });

  it('keeps the key after an uncertain failure and reuses it after a restart', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'leasehold-req-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const { server, config } = await setup([json(503, { type: 'unavailable_error', message: 'x' }), json(503, { type: 'unavailable_error', message: 'x' }), json(201, CLAIM)], {
      idempotencyStore: new FileIdempotencyStore({ directory: dir }),
      maxRetries: 1,
      retryPolicy: undefined,
    });
    await expect(request(config, { method: 'POST', path: '/v1/x', operationId: 'acquire-report-7' })).rejects.toBeInstanceOf(ServiceUnavailableError);
    const restarted = { ...config, idempotencyStore: new FileIdempotencyStore({ directory: dir }) };
    expect(await restarted.idempotencyStore.get('acquire-report-7')).toBe(server.seen[0]?.headers['idempotency-key']);
    const res = await request(restarted, { method: 'POST', path: '/v1/x', operationId: 'acquire-report-7' });
    expect(new Set(server.seen.map((s) => s.headers['idempotency-key'])).size).toBe(1);
    expect(res.idempotencyKey).toBe(server.seen[0]?.headers['idempotency-key']);
    // Kept after the 2xx: a worker killed before recording the answer replays it under the same key.
    expect(await restarted.idempotencyStore.get('acquire-report-7')).toBe(res.idempotencyKey);
  });

  // Only the timeout case has a short attempt timeout: a 30 ms one for every case timed out the
  // 409 on a busy machine (the answer arrived after 30 ms) and kept the key.
  it.each([
    ['400', 'cleared', json(400, { type: 'invalid_request_error', message: 'x' }), 60_000],
    ['409 claim_held', 'cleared', json(409, { type: 'conflict_error', code: 'claim_held', message: 'x' }), 60_000],
    ['410', 'cleared', json(410, { type: 'gone_error', code: 'stale_token', message: 'x' }), 60_000],
    ['429 (retryable)', 'kept', json(429, { type: 'rate_limit_error', message: 'x' }, { 'retry-after': '1' }), 60_000],
    ['409 idempotency_in_flight (retryable)', 'kept', json(409, { type: 'conflict_error', code: 'idempotency_in_flight', message: 'x' }), 60_000],
    ['500', 'kept', json(500, { type: 'api_error', message: 'x' }), 60_000],
    ['timeout', 'kept', hang, 30],
  ] as const)('after %s the stored key is %s', async (_, want, responder, timeoutMs) => {
    const store = new MemoryIdempotencyStore();
    const { config } = await setup([responder], { idempotencyStore: store, timeoutMs });
    await expect(request(config, { method: 'POST', path: '/v1/x', operationId: 'op', maxRetries: 0 })).rejects.toBeDefined();
    expect((await store.get('op')) === undefined ? 'cleared' : 'kept').toBe(want);
  });

  it('an abort keeps the stored key', async () => {
    const store = new MemoryIdempotencyStore();
    const { server, config } = await setup([hang], { idempotencyStore: store });
    const controller = new AbortController();
    const pending = request(config, { method: 'POST', path: '/v1/x', operationId: 'op', signal: controller.signal }).catch((e: unknown) => e);
    await server.arrived(1);
    controller.abort();
    expect(await pending).toBeInstanceOf(AbortError);
    expect(await store.get('op')).toBe(server.seen[0]?.headers['idempotency-key']);
  });

  it('a caller key is used as is, stored under the operation id', async () => {
    const store = new MemoryIdempotencyStore();
    const { server, config } = await setup([json(500, { type: 'api_error', message: 'x' })], { idempotencyStore: store });
    await expect(request(config, { method: 'POST', path: '/v1/x', operationId: 'op', idempotencyKey: 'my-key-1', maxRetries: 0 })).rejects.toBeDefined();
    expect(server.seen[0]?.headers['idempotency-key']).toBe('my-key-1');
    expect(await store.get('op')).toBe('my-key-1');
  });

  it('rejects an invalid caller key before sending', async () => {
    const { server, config } = await setup([json(200, {})]);
    await expect(request(config, { method: 'POST', path: '/v1/x', idempotencyKey: 'bad\nkey' })).rejects.toThrow(/Idempotency-Key/);
    await expect(request(config, { method: 'POST', path: '/v1/x', idempotencyKey: 'x'.repeat(256) })).rejects.toThrow(/Idempotency-Key/);
    expect(server.seen).toHaveLength(0);
  });

  it('a store that cannot write stops the request before anything is sent', async () => {
    const { server, config } = await setup([json(200, {})], {
      idempotencyStore: { get: async () => undefined, put: async () => { throw new Error('EROFS'); }, delete: async () => {} },
    });
    await expect(request(config, { method: 'POST', path: '/v1/x', operationId: 'op' })).rejects.toThrow(/nothing was sent/);
    expect(server.seen).toHaveLength(0);
  });
});
