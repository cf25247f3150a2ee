import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createLeaseholdServer, type LeaseholdServerOptions } from '../leasehold-server.js';
import { listen, type NodeListener } from '../adapters/node-http/listen.js';

const SPACE = '6f1c2b9e-8d4a-4c1e-9b7a-3e2f1d0c9b8a';
const RUN = '0b7e4c6a-1f2d-4e3b-8a9c-5d6e7f8a9b0c';
const T0 = Date.UTC(2026, 10, 29, 15, 0, 0);
const listeners: NodeListener[] = [];

afterEach(async () => {
  await Promise.all(listeners.splice(0).map((l) => l.close()));
});

async function start(options: LeaseholdServerOptions = {}) {
  const server = createLeaseholdServer({ clock: 'manual', startTime: T0, control: true, ...options });
  const listener = await listen(server, { port: 0 });
  listeners.push(listener);
  return { server, listener };
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** One request over node:http; `chunks` are written one by one (chunked encoding) with a pause between. */
function send(listener: NodeListener, method: string, path: string, chunks: Array<string | Buffer> = [], headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${listener.url}${path}`,
      { method, headers: { authorization: 'Bearer lh_test_admin', 'content-type': 'application/json', ...headers } },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(parts).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    let i = 0;
    const next = () => {
      if (i === chunks.length) return void req.end();
      req.write(chunks[i++]);
      setTimeout(next, 5);
    };
    next();
  });
}

const acquireBody = (key: string) => JSON.stringify({ key, scopeId: RUN, holder: 'w', holderSession: 's', leaseSeconds: 60 });

describe('node:http adapter and pipeline', () => {
  it('gives every response a distinct req_ id, the same in error bodies, across servers of one process', async () => {
    const a = await start();
    const b = await start();
    const ids = new Set<string>();
    for (const { listener } of [a, b, a, b]) {
      const answer = await send(listener, 'GET', `/v1/spaces/${SPACE}/claims`);
      expect(answer.status).toBe(200);
      ids.add(String(answer.headers['request-id']));
    }
    const error = await send(a.listener, 'GET', '/nope');
    expect(error.status).toBe(404);
    expect(JSON.parse(error.text).request_id).toBe(error.headers['request-id']);
    ids.add(String(error.headers['request-id']));
    expect(ids.size).toBe(5);
    for (const id of ids) expect(id).toMatch(/^req_[A-Za-z0-9_-]{12}[0-9a-z]+$/);
  });

  it('dates answers by the engine clock, to the second', async () => {
    const { server, listener } = await start();
    const date = async () => String((await send(listener, 'GET', `/v1/spaces/${SPACE}/claims`)).headers.date);
    expect(await date()).toBe(new Date(T0).toUTCString());
    server.control.advanceClock(999);
    expect(await date()).toBe(new Date(T0).toUTCString());
    server.control.advanceClock(1);
    expect(await date()).toBe(new Date(T0 + 1000).toUTCString());
    server.control.advanceClock(3_600_000);
    expect(await date()).toBe(new Date(T0 + 3_601_000).toUTCString());
  });

  it('reads a body sent in several chunks', async () => {
    const { listener } = await start();
    const body = acquireBody('chunked');
    const parts = [body.slice(0, 7), body.slice(7, 30), body.slice(30)];
    const answer = await send(listener, 'POST', `/v1/spaces/${SPACE}/claims`, parts, { 'idempotency-key': 'chunked-1' });
    expect(answer.status).toBe(201);
    expect(JSON.parse(answer.text)).toMatchObject({ key: 'chunked', holder: 'w', status: 'held' });
  });

  it('answers 413 to a body over 1 MiB sent in chunks', async () => {
    const { listener } = await start();
    const chunk = Buffer.alloc(256 * 1024, 0x20);
    const answer = await send(listener, 'POST', `/v1/spaces/${SPACE}/claims`, [chunk, chunk, chunk, chunk, Buffer.from('{}')], {
      'idempotency-key': 'big-1',
    });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.text)).toMatchObject({ code: 'body_too_large' });
  });

  it('waits for injected latency and then answers (the asynchronous path), replaying by key', async () => {
    const waits: number[] = [];
    const { server, listener } = await start({ sleep: async (ms) => void waits.push(ms) });
    server.control.injectFault({ operationId: 'acquireSpaceClaim', latencyMs: 40, times: 1 });
    const first = await send(listener, 'POST', `/v1/spaces/${SPACE}/claims`, [acquireBody('slow')], { 'idempotency-key': 'slow-1' });
    expect(first.status).toBe(201);
    expect(waits).toEqual([40]);
    const again = await send(listener, 'POST', `/v1/spaces/${SPACE}/claims`, [acquireBody('slow')], { 'idempotency-key': 'slow-1' });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(JSON.parse(again.text).claimId).toBe(JSON.parse(first.text).claimId);
    expect(again.headers['request-id']).not.toBe(first.headers['request-id']);
  });

  it('answers an injected status after its latency', async () => {
    const waits: number[] = [];
    const { server, listener } = await start({ sleep: async (ms) => void waits.push(ms) });
    server.control.injectFault({ operationId: 'listSpaceClaims', status: 503, latencyMs: 15, retryAfterSeconds: 2, times: 1 });
    const answer = await send(listener, 'GET', `/v1/spaces/${SPACE}/claims`);
    expect(answer.status).toBe(503);
    expect(answer.headers['retry-after']).toBe('2');
    expect(JSON.parse(answer.text)).toMatchObject({ code: 'service_unavailable', request_id: answer.headers['request-id'] });
    expect(waits).toEqual([15]);
  });
});
