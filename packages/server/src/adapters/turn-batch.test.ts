import { afterEach, describe, expect, it, vi } from 'vitest';
import { request } from 'undici';
import { createLeaseholdServer } from '../leasehold-server.js';
import { listen, type NodeListener } from './node-http/listen.js';
import { TurnBatch } from './turn-batch.js';

const SPACE = '6f1c2b9e-8d4a-4c1e-9b7a-3e2f1d0c9b8a';
const SCOPE = '0b7e4c6a-1f2d-4e3b-8a9c-5d6e7f8a9b0c';
const listeners: NodeListener[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(listeners.splice(0).map((listener) => listener.close()));
});

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('TurnBatch', () => {
  it('hands over what one turn queued after that turn, in one batch, in order; the next turn on its own; flush at once', async () => {
    const written: string[] = [];
    const batch = new TurnBatch<string>((items) => written.push(items.join('')));
    batch.add('a');
    batch.add('b');
    batch.add('c');
    expect(written).toEqual([]);
    await nextTurn();
    expect(written).toEqual(['abc']);
    batch.add('d');
    expect(written).toEqual(['abc']);
    await nextTurn();
    expect(written).toEqual(['abc', 'd']);
    batch.add('e');
    batch.flush();
    expect(written).toEqual(['abc', 'd', 'e']);
    await nextTurn();
    expect(written).toEqual(['abc', 'd', 'e']);
  });

  it('is not held back by fake timers installed after it loaded (setImmediate faked too)', async () => {
    const written: number[] = [];
    const batch = new TurnBatch<number>((items) => written.push(...items));
    vi.useFakeTimers({ toFake: ['setImmediate', 'setTimeout', 'setInterval', 'Date'] });
    batch.add(1);
    vi.useRealTimers();
    await nextTurn();
    expect(written).toEqual([1]);
  });
});

describe('the node:http listener', () => {
  it('answers each of many concurrent requests with its own answer, with fake timers installed', async () => {
    const listener = await listen(createLeaseholdServer(), { port: 0 });
    listeners.push(listener);
    vi.useFakeTimers({ toFake: ['setImmediate', 'setTimeout', 'setInterval'] });
    const keys = Array.from({ length: 64 }, (_, i) => `batch/${i}`);
    const answers = await Promise.all(
      keys.map(async (key) => {
        const response = await request(`${listener.url}/v1/spaces/${SPACE}/claims`, {
          method: 'POST',
          headers: { authorization: 'Bearer lh_test_admin', 'content-type': 'application/json', 'idempotency-key': `batch-${key}` },
          body: JSON.stringify({ key, scopeId: SCOPE, holder: 'batch', holderSession: 'batch-session' }),
        });
        return { status: response.statusCode, key: ((await response.body.json()) as { key: string }).key };
      }),
    );
    vi.useRealTimers();
    expect(answers.map((a) => a.status)).toEqual(keys.map(() => 201));
    expect(answers.map((a) => a.key)).toEqual(keys);
  });

  it('answers the rest of a turn when the app throws on one request or its promise rejects: those get the 500 envelope', async () => {
    const listener = await listen(
      {
        respond: (plain) => {
          if (plain.url === '/throws') throw new Error('boom');
          if (plain.url === '/rejects') return Promise.reject(new Error('boom'));
          return { status: 200, headers: { 'content-type': 'text/plain' }, body: plain.url };
        },
      },
      { port: 0 },
    );
    listeners.push(listener);
    const paths = ['/a', '/throws', '/b', '/rejects', '/c'];
    const answers = await Promise.all(
      paths.map(async (path) => {
        const response = await request(`${listener.url}${path}`);
        return [response.statusCode, await response.body.text()] as const;
      }),
    );
    expect(answers.map(([status]) => status)).toEqual([200, 500, 200, 500, 200]);
    expect(answers[0]?.[1]).toBe('/a');
    expect(answers[4]?.[1]).toBe('/c');
    expect(JSON.parse(answers[1]![1])).toMatchObject({ error: { code: 'internal_error' } });
  });
});
