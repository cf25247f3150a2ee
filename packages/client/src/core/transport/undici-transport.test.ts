import { Agent, MockAgent, Pool, request as undiciRequest } from 'undici';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AbortError, ConnectionError, TimeoutError } from '../errors/connection-errors.js';
import { LeaseholdError } from '../errors/leasehold-error.js';
import { sendAttempt } from './send-attempt.js';
import { hang, json, startTestHttpServer, type TestHttpServer } from '../../internal/test-http-server.js';
import { UndiciTransport } from './undici-transport.js';

const NO_LIMIT = { timeoutMs: Number.POSITIVE_INFINITY, remainingMs: Number.POSITIVE_INFINITY, budgetMs: Number.POSITIVE_INFINITY };

let server: TestHttpServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('UndiciTransport', () => {
  it('sends and returns status, lowercase headers, body text; keeps the connection alive', async () => {
    server = await startTestHttpServer([json(200, { n: 1 }, { 'X-Thing': 'yes' })]);
    const transport = new UndiciTransport();
    try {
      const a = await transport.send({ method: 'PUT', url: `${server.url}/v1/a`, headers: { 'Content-Type': 'application/json' }, body: '{"x":1}' });
      await transport.send({ method: 'GET', url: `${server.url}/v1/b`, headers: {} });
      expect(a).toMatchObject({ status: 200, bodyText: '{"n":1}' });
      expect(a.headers['x-thing']).toBe('yes');
      expect(server.seen[0]).toMatchObject({ method: 'PUT', url: '/v1/a', body: '{"x":1}' });
      expect(server.seen[1]?.headers.connection).toBe('keep-alive');
    } finally {
      await transport.close();
    }
  });

  it('uses a caller dispatcher and never closes it', async () => {
    const mock = new MockAgent();
    mock.disableNetConnect();
    mock.get('https://api.leasehold.test').intercept({ path: '/v1/x', method: 'GET' }).reply(503, 'upstream down', { headers: { 'retry-after': '1' } }).times(2);
    const transport = new UndiciTransport({ dispatcher: mock });
    expect(await transport.send({ method: 'GET', url: 'https://api.leasehold.test/v1/x', headers: {} })).toMatchObject({ status: 503, bodyText: 'upstream down', headers: { 'retry-after': '1' } });
    await transport.close();
    expect((await transport.send({ method: 'GET', url: 'https://api.leasehold.test/v1/x', headers: {} })).status).toBe(503);
    await mock.close();
  });

  it('close() closes the agent it created', async () => {
    server = await startTestHttpServer([json(200, {})]);
    const transport = new UndiciTransport();
    await transport.send({ method: 'GET', url: server.url, headers: {} });
    await transport.close();
    await expect(transport.send({ method: 'GET', url: server.url, headers: {} })).rejects.toBeInstanceOf(ConnectionError);
  });

  it('connection refused → ConnectionError; abort → AbortError', async () => {
    server = await startTestHttpServer([hang]);
    const agent = new Agent();
    const transport = new UndiciTransport({ dispatcher: agent });
    const controller = new AbortController();
    const pending = transport.send({ method: 'GET', url: server.url, headers: {}, signal: controller.signal });
    await server.arrived(1);
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(AbortError);
    const url = server.url;
    await server.close();
    server = undefined;
    await expect(transport.send({ method: 'GET', url, headers: {} })).rejects.toBeInstanceOf(ConnectionError);
    await agent.close();
  });
});

describe('UndiciTransport: one attempt under its limits (sendAttempt)', () => {
  it('answers like undici.request + body.text(): lowercase headers, repeats joined, BOM skipped, UTF-8 body', async () => {
    server = await startTestHttpServer([
      (_req, res) => {
        res.setHeader('Set-Cookie', ['a=1', 'b=2']);
        res.setHeader('X-Mixed-Case', 'Yes');
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"name":"Zoë ✓"}')]));
      },
    ]);
    const transport = new UndiciTransport();
    try {
      const url = `${server.url}/v1/x?q=1`;
      const res = await sendAttempt(transport, { method: 'GET', url, headers: {} }, NO_LIMIT);
      const ref = await undiciRequest(url);
      expect(res.bodyText).toBe(await ref.body.text());
      expect(res.bodyText).toBe('{"name":"Zoë ✓"}');
      expect(res.headers['set-cookie']).toBe('a=1, b=2');
      expect(res.headers['x-mixed-case']).toBe('Yes');
      expect(Object.keys(res.headers).sort()).toEqual(Object.keys(ref.headers).sort());
      expect(server.seen[0]?.url).toBe('/v1/x?q=1');
    } finally {
      await transport.close();
    }
  });

  it('sends the path as the WHATWG parser reads it, whether or not it is plain', async () => {
    server = await startTestHttpServer([json(200, {})]);
    const transport = new UndiciTransport();
    try {
      const paths = ['/v1/a%2Fb/renew', '/v1/x/../y', '/v1/a b', "/v1/q?x='1'", '/v1/%2e%2e/z', '/v1/plain?a=1&b=2'];
      for (const path of paths) await sendAttempt(transport, { method: 'GET', url: `${server.url}${path}`, headers: {} }, NO_LIMIT);
      const expected = paths.map((path) => {
        const url = new URL(`${server?.url}${path}`);
        return `${url.pathname}${url.search}`;
      });
      expect(server.seen.map((seen) => seen.url)).toEqual(expected);
      await expect(sendAttempt(transport, { method: 'GET', url: 'ftp://127.0.0.1/x', headers: {} }, NO_LIMIT)).rejects.toThrow(/Invalid request/);
      await expect(sendAttempt(transport, { method: 'GET', url: 'not a url', headers: {} }, NO_LIMIT)).rejects.toBeInstanceOf(LeaseholdError);
    } finally {
      await transport.close();
    }
  });

  it('an attempt timeout rejects with TimeoutError(attempt) and frees the connection', async () => {
    server = await startTestHttpServer([hang, json(200, { ok: true })]);
    const transport = new UndiciTransport({ connections: 1 });
    try {
      const limits = { timeoutMs: 40, remainingMs: Number.POSITIVE_INFINITY, budgetMs: Number.POSITIVE_INFINITY };
      const error = await sendAttempt(transport, { method: 'GET', url: `${server.url}/a`, headers: {} }, limits).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TimeoutError);
      expect(error).toMatchObject({ scope: 'attempt', timeoutMs: 40 });
      const next = await sendAttempt(transport, { method: 'GET', url: `${server.url}/b`, headers: {} }, limits);
      expect(next.bodyText).toBe('{"ok":true}');
    } finally {
      await transport.close();
    }
  });

  it('the overall deadline is a TimeoutError(deadline) with the budget; a body that stalls times out too', async () => {
    server = await startTestHttpServer([
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"partial":');
      },
    ]);
    const transport = new UndiciTransport();
    try {
      const error = await sendAttempt(transport, { method: 'GET', url: `${server.url}/a`, headers: {} }, { timeoutMs: 60_000, remainingMs: 30, budgetMs: 500 }).catch((e: unknown) => e);
      expect(error).toMatchObject({ name: 'TimeoutError', scope: 'deadline', timeoutMs: 500 });
    } finally {
      await transport.close();
    }
  });

  it('a request still waiting for a connection times out or aborts on time, and is never sent', async () => {
    server = await startTestHttpServer([hang]);
    const pool = new Pool(server.url, { connections: 1 });
    const transport = new UndiciTransport({ dispatcher: pool });
    try {
      const first = new AbortController();
      const blocking = sendAttempt(transport, { method: 'GET', url: `${server.url}/first`, headers: {} }, { ...NO_LIMIT, signal: first.signal }).catch((e: unknown) => e);
      await server.arrived(1);
      const started = performance.now();
      const timedOut = await sendAttempt(transport, { method: 'GET', url: `${server.url}/queued`, headers: {} }, { ...NO_LIMIT, timeoutMs: 30 }).catch((e: unknown) => e);
      expect(timedOut).toMatchObject({ name: 'TimeoutError', scope: 'attempt' });
      expect(performance.now() - started).toBeLessThan(1_000);
      const second = new AbortController();
      const aborted = sendAttempt(transport, { method: 'GET', url: `${server.url}/queued-too`, headers: {} }, { ...NO_LIMIT, signal: second.signal }).catch((e: unknown) => e);
      second.abort(new Error('stop'));
      const abortError = await aborted;
      expect(abortError).toBeInstanceOf(AbortError);
      expect((abortError as AbortError).cause).toEqual(new Error('stop'));
      first.abort();
      expect(await blocking).toBeInstanceOf(AbortError);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(server.seen.map((seen) => seen.url)).toEqual(['/first']);
    } finally {
      await pool.close();
    }
  });

  it('fake timers drive the attempt timeout (whether or not performance.now() is faked)', async () => {
    for (const toFake of [['setTimeout', 'clearTimeout'], ['setTimeout', 'clearTimeout', 'performance']] as const) {
      const mock = new MockAgent();
      mock.disableNetConnect();
      mock.get('https://api.leasehold.test').intercept({ path: '/slow', method: 'GET' }).reply(200, 'late').delay(10_000);
      const transport = new UndiciTransport({ dispatcher: mock });
      vi.useFakeTimers({ toFake: [...toFake] });
      try {
        const pending = sendAttempt(transport, { method: 'GET', url: 'https://api.leasehold.test/slow', headers: {} }, { ...NO_LIMIT, timeoutMs: 5_000 }).catch((e: unknown) => e);
        await vi.advanceTimersByTimeAsync(4_999);
        let settled = false;
        void pending.then(() => (settled = true));
        await Promise.resolve();
        expect(settled).toBe(false);
        await vi.advanceTimersByTimeAsync(2);
        expect(await pending).toMatchObject({ name: 'TimeoutError', scope: 'attempt', timeoutMs: 5_000 });
      } finally {
        vi.useRealTimers();
        await mock.close();
      }
    }
  });
});
