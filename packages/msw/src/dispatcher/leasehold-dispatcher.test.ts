import { Readable } from 'node:stream';
import { errors, fetch as undiciFetch, request, type Dispatcher } from 'undici';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLeaseholdMockServer } from '../mock-server.js';
import { ADMIN, SCOPE, SPACE } from '../test-kit.js';
import { LeaseholdDispatcher, LeaseholdDispatcherError } from './leasehold-dispatcher.js';

const base = 'https://api.test/mount';
const auth = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };
const heartbeatBody = JSON.stringify({ ttl: 30, holderSession: 'sess_1' });

afterEach(() => vi.useRealTimers());

function acquireBody(key: string, session = 'sess_1') {
  return JSON.stringify({ key, scopeId: SCOPE, holder: 'w', holderSession: session, leaseSeconds: 30 });
}

describe('LeaseholdDispatcher with undici.request', () => {
  it('answers with status, lower-case headers and the JSON body', async () => {
    const dispatcher = new LeaseholdDispatcher({ baseUrl: base });
    const answer = await request(`${base}/v1/spaces/${SPACE}/claims`, {
      dispatcher,
      method: 'POST',
      headers: { ...auth, 'Idempotency-Key': 'k1' },
      body: acquireBody('a'),
    });
    expect(answer.statusCode).toBe(201);
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(answer.headers['request-id']).toMatch(/^req_/);
    const claim = (await answer.body.json()) as { key: string; status: string; token: string };
    expect(claim).toMatchObject({ key: 'a', status: 'held' });
    expect(dispatcher.server.engine).toBeDefined();
  });

  it('sends the query, from the path or the query option', async () => {
    const dispatcher = new LeaseholdDispatcher({ baseUrl: base });
    for (const key of ['reports/1', 'reports/2', 'other/1']) {
      await request(`${base}/v1/spaces/${SPACE}/claims`, { dispatcher, method: 'POST', headers: { ...auth, 'idempotency-key': key }, body: acquireBody(key) });
    }
    const keysOf = async (answer: Dispatcher.ResponseData) => ((await answer.body.json()) as { data: Array<{ key: string }> }).data.map((c) => c.key);
    const url = `${base}/v1/spaces/${SPACE}/claims`;
    expect(await keysOf(await request(`${url}?prefix=reports%2F`, { dispatcher, headers: auth }))).toEqual(['reports/1', 'reports/2']);
    expect(await keysOf(await request(url, { dispatcher, headers: auth, query: { prefix: 'other/' } }))).toEqual(['other/1']);
  });

  it('reads stream, Buffer and Uint8Array bodies, and answers 413 past 1 MiB', async () => {
    const dispatcher = new LeaseholdDispatcher({ baseUrl: base });
    const url = `${base}/v1/claims/heartbeat`;
    for (const body of [Readable.from([Buffer.from('{"ttl":'), Buffer.from('30}')]), Buffer.from(heartbeatBody), new TextEncoder().encode(heartbeatBody)]) {
      const answer = await request(url, { dispatcher, method: 'POST', headers: auth, body });
      expect(answer.statusCode).toBe(200);
      await answer.body.dump();
    }
    const huge = await request(url, { dispatcher, method: 'POST', headers: auth, body: JSON.stringify({ ttl: 30, pad: 'x'.repeat(1024 * 1024) }) });
    expect(huge.statusCode).toBe(413);
    await huge.body.dump();
  });

  it('works through the Dispatcher API (dispatcher.request)', async () => {
    const dispatcher = new LeaseholdDispatcher();
    const answer = await dispatcher.request({ origin: 'http://any.host', path: '/v1/claims/heartbeat', method: 'POST', headers: auth, body: heartbeatBody });
    expect(answer.statusCode).toBe(200);
    expect(await answer.body.json()).toEqual({ object: 'list', results: [] });
  });

  it('fails a dropped answer with undici’s SocketError after committing the write', async () => {
    const dispatcher = new LeaseholdDispatcher({ baseUrl: base });
    dispatcher.scenario.dropNextResponse('acquireSpaceClaim');
    const send = () =>
      request(`${base}/v1/spaces/${SPACE}/claims`, { dispatcher, method: 'POST', headers: { ...auth, 'idempotency-key': 'drop-1' }, body: acquireBody('dropped') });
    const error = await send().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(errors.SocketError);
    expect((error as { code: string }).code).toBe('UND_ERR_SOCKET');
    const replay = await send();
    expect(replay.statusCode).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    await replay.body.dump();
  });

  it('refuses what lies outside its base URL, on a path boundary', async () => {
    const dispatcher = new LeaseholdDispatcher({ baseUrl: base });
    for (const url of ['https://api.test/mount2/v1/claims/heartbeat', 'https://other.test/mount/v1/claims/heartbeat']) {
      await expect(request(url, { dispatcher, method: 'POST', headers: auth, body: heartbeatBody })).rejects.toBeInstanceOf(LeaseholdDispatcherError);
    }
  });

  it('aborts promptly while an injected latency holds the answer', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const dispatcher = new LeaseholdDispatcher({ baseUrl: base });
    dispatcher.scenario.addLatency('heartbeatClaims', '10s');
    const controller = new AbortController();
    const pending = request(`${base}/v1/claims/heartbeat`, { dispatcher, method: 'POST', headers: auth, body: heartbeatBody, signal: controller.signal });
    await vi.advanceTimersByTimeAsync(100);
    controller.abort();
    await expect(pending).rejects.toThrow(/abort/i);
    await vi.advanceTimersByTimeAsync(10_000);
    await dispatcher.close();
  });

  it('close() waits for running requests, then refuses new ones; destroy() fails running ones', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const dispatcher = new LeaseholdDispatcher({ baseUrl: base });
    dispatcher.scenario.addLatency('heartbeatClaims', '1s', { times: 2 });
    const send = () => request(`${base}/v1/claims/heartbeat`, { dispatcher, method: 'POST', headers: auth, body: heartbeatBody });
    const running = send();
    let closed = false;
    const closing = dispatcher.close().then(() => (closed = true));
    await expect(send()).rejects.toBeInstanceOf(errors.ClientClosedError);
    await vi.advanceTimersByTimeAsync(999);
    expect(closed).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect((await running).statusCode).toBe(200);
    await closing;

    const other = new LeaseholdDispatcher({ baseUrl: base, server: dispatcher.server });
    const doomed = request(`${base}/v1/claims/heartbeat`, { dispatcher: other, method: 'POST', headers: auth, body: heartbeatBody });
    await vi.advanceTimersByTimeAsync(10);
    const destroyed = other.destroy();
    await expect(doomed).rejects.toBeInstanceOf(errors.ClientDestroyedError);
    await vi.advanceTimersByTimeAsync(1_000);
    await destroyed;
  });
});

describe('LeaseholdDispatcher with undici.fetch', () => {
  it('answers, and a dropped answer rejects with fetch failed ← SocketError', async () => {
    const dispatcher = new LeaseholdDispatcher({ baseUrl: base });
    const send = () => undiciFetch(`${base}/v1/claims/heartbeat`, { dispatcher, method: 'POST', headers: auth, body: heartbeatBody });
    const ok = await send();
    expect(ok.status).toBe(200);
    expect(ok.headers.get('request-id')).toMatch(/^req_/);
    expect(await ok.json()).toEqual({ object: 'list', results: [] });
    dispatcher.scenario.dropNextResponse('heartbeatClaims');
    const error = (await send().catch((e: unknown) => e)) as TypeError;
    expect(error).toBeInstanceOf(TypeError);
    expect(error.cause).toBeInstanceOf(errors.SocketError);
  });

  it('answers 204 with no body', async () => {
    const dispatcher = new LeaseholdDispatcher({ baseUrl: base });
    const headers = { ...auth, 'idempotency-key': 'spool-1' };
    await undiciFetch(`${base}/v1/spools`, { dispatcher, method: 'POST', headers, body: JSON.stringify({ name: 'billing' }) });
    await undiciFetch(`${base}/v1/spools/billing/queues/q`, { dispatcher, method: 'PUT', headers: auth, body: JSON.stringify({ leaseTimeoutSeconds: 30 }) });
    const empty = await undiciFetch(`${base}/v1/spools/billing/queues/q/receive`, { dispatcher, method: 'POST', headers: auth });
    expect(empty.status).toBe(204);
    expect(await empty.text()).toBe('');
  });
});

describe('LeaseholdDispatcher with Node’s built-in fetch', () => {
  it('takes the dispatcher option too', async () => {
    const dispatcher = new LeaseholdDispatcher({ baseUrl: base });
    const init = { dispatcher, method: 'POST', headers: auth, body: heartbeatBody } as RequestInit;
    const ok = await fetch(`${base}/v1/claims/heartbeat`, init);
    expect(ok.status).toBe(200);
    dispatcher.scenario.dropNextResponse('heartbeatClaims');
    const error = (await fetch(`${base}/v1/claims/heartbeat`, init).catch((e: unknown) => e)) as TypeError;
    expect((error.cause as { code?: string }).code).toBe('UND_ERR_SOCKET');
  });
});

describe('the controller handler API', () => {
  it('drives onRequestStart → onResponseStart → (pause/resume) → onResponseData → onResponseEnd', async () => {
    const dispatcher = new LeaseholdDispatcher({ server: createLeaseholdMockServer() });
    const events: string[] = [];
    let resumeLater: (() => void) | undefined;
    const chunks: Buffer[] = [];
    const done = new Promise<void>((resolve, reject) => {
      dispatcher.dispatch(
        { origin: 'https://api.test', path: '/v1/claims/heartbeat', method: 'POST', headers: auth, body: heartbeatBody },
        {
          onRequestStart: () => events.push('start'),
          onResponseStart: (controller, status, headers) => {
            events.push(`headers ${status} ${String(headers['content-length'])}`);
            controller.pause();
            resumeLater = () => controller.resume();
          },
          onResponseData: (_controller, chunk) => {
            events.push('data');
            chunks.push(chunk);
          },
          onResponseEnd: () => {
            events.push('end');
            resolve();
          },
          onResponseError: (_controller, error) => reject(error),
        },
      );
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(events).toEqual(['start', 'headers 200 30']);
    resumeLater?.();
    await done;
    expect(events).toEqual(['start', 'headers 200 30', 'data', 'end']);
    expect(JSON.parse(Buffer.concat(chunks).toString())).toEqual({ object: 'list', results: [] });
  });

  it('reports a dropped answer through onResponseError', async () => {
    const dispatcher = new LeaseholdDispatcher();
    dispatcher.scenario.dropNextResponse('heartbeatClaims');
    const error = await new Promise<Error>((resolve) => {
      dispatcher.dispatch(
        { origin: 'https://api.test', path: '/v1/claims/heartbeat', method: 'POST', headers: auth, body: heartbeatBody },
        { onResponseError: (_controller, e) => resolve(e), onResponseEnd: () => resolve(new Error('answered')) },
      );
    });
    expect(error).toBeInstanceOf(errors.SocketError);
  });
});
