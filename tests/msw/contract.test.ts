import { setupServer } from 'msw/node';
import { fetch as undiciFetch, request as undiciRequest, type Dispatcher } from 'undici';
import { beforeAll, describe, expect, it } from 'vitest';
import { LeaseholdDispatcher } from '../../packages/msw/src/dispatcher.js';
import { createLeaseholdHandlers, createLeaseholdMockServer } from '../../packages/msw/src/index.js';
import { listen } from '../../packages/server/src/index.js';
import { normalize } from './support/normalize.js';
import { runOddRequests, type SendPairs } from './support/odd-requests.js';
import { runScriptedSequence, type Send, type Step } from './support/scripted-sequence.js';

/** Sends with a fetch, the way the client's fetch mode does. */
function sendWithFetch(base: string, fetchFn: typeof fetch, init: Record<string, unknown> = {}): Send {
  return async ({ method, path, headers, body }) => {
    const response = await fetchFn(base + path, { method, headers, ...(body === undefined ? {} : { body }), ...init });
    const out: Record<string, string> = {};
    response.headers.forEach((value, name) => (out[name] = value));
    return { status: response.status, headers: out, body: await response.text() };
  };
}

/** Sends with `undici.request`, the way the client's default transport does. */
function sendWithUndici(base: string, dispatcher: Dispatcher): Send {
  return async ({ method, path, headers, body }) => {
    const response = await undiciRequest(base + path, { dispatcher, method: method as Dispatcher.HttpMethod, headers, body });
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(response.headers)) if (value !== undefined) out[name] = String(value);
    return { status: response.statusCode, headers: out, body: await response.body.text() };
  };
}

/** Sends header pairs with a fetch (a repeated name becomes one joined line, as Fetch's `Headers` do). */
function pairsWithFetch(base: string, fetchFn: typeof fetch, init: Record<string, unknown> = {}): SendPairs {
  return async ({ method, path, headers, body }) => {
    const response = await fetchFn(base + path, { method, headers: new Headers(headers), ...(body === undefined ? {} : { body }), ...init });
    const out: Record<string, string> = {};
    response.headers.forEach((value, name) => (out[name] = value));
    return { status: response.status, headers: out, body: await response.text() };
  };
}

/** Sends header pairs with `undici.request`: a repeated name goes out as separate header lines. */
function pairsWithUndici(base: string, dispatcher?: Dispatcher): SendPairs {
  return async ({ method, path, headers, body }) => {
    const response = await undiciRequest(base + path, { dispatcher, method: method as Dispatcher.HttpMethod, headers: headers.flat(), body });
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(response.headers)) if (value !== undefined) out[name] = String(value);
    return { status: response.statusCode, headers: out, body: await response.body.text() };
  };
}

const transcripts: Record<string, Step[]> = {};
const odd: Record<string, Step[]> = {};

beforeAll(async () => {
  // 1. MSW handlers, global fetch, a base URL with a mount prefix.
  {
    const leasehold = createLeaseholdHandlers({ baseUrl: 'https://api.test/api' });
    const mswServer = setupServer(...leasehold.handlers);
    mswServer.listen({ onUnhandledRequest: 'error' });
    try {
      transcripts.msw = await runScriptedSequence(sendWithFetch('https://api.test/api', fetch), leasehold.server.control, 'https://api.test/api');
    } finally {
      mswServer.close();
    }
  }
  // 2. Real HTTP: the same kind of server on node:http, port 0, global fetch.
  {
    const server = createLeaseholdMockServer();
    const listener = await listen(server, { port: 0 });
    try {
      transcripts.http = await runScriptedSequence(sendWithFetch(listener.url, fetch), server.control, listener.url);
    } finally {
      await listener.close();
    }
  }
  // 3. The undici dispatcher, with undici.request.
  {
    const dispatcher = new LeaseholdDispatcher({ baseUrl: 'https://leasehold.test/mount' });
    transcripts.dispatcherRequest = await runScriptedSequence(sendWithUndici('https://leasehold.test/mount', dispatcher), dispatcher.server.control, 'https://leasehold.test/mount');
  }
  // 4. The undici dispatcher, with undici's fetch.
  {
    const dispatcher = new LeaseholdDispatcher({ baseUrl: 'https://leasehold.test' });
    const send = sendWithFetch('https://leasehold.test', undiciFetch as unknown as typeof fetch, { dispatcher });
    transcripts.dispatcherFetch = await runScriptedSequence(send, dispatcher.server.control, 'https://leasehold.test');
  }
});

describe('one scripted sequence, every transport', () => {
  it('runs the whole story (the transcript is not vacuous)', () => {
    const http = transcripts.http ?? [];
    expect(http.map((s) => `${s.step}: ${s.status}`)).toEqual([
      'acquire: 201',
      'conflicting acquire: 409',
      'wait in queue: 202',
      'replayed acquire: 201',
      'heartbeat holder: 200',
      'heartbeat waiter: 200',
      'read holder: 200',
      'advance clock 31 s: 0',
      'waiter granted: 200',
      'holder lost: 200',
      'read new holder: 200',
      'release: 200',
      'read free key: 404',
      'list: 200',
      'create task: 201',
      'claim task: 200',
      'claimed again: 409',
      'stale claim: 412',
      'complete task: 200',
      'create spool: 201',
      'put queue: 201',
      'send: 201',
      'receive: 200',
      'ack: 204',
      'send again: 201',
      'receive again: 200',
      'discard: 204',
      'ack after discard: 410',
      'receive from empty queue: 204',
      'unknown key: 401',
    ]);
    const byStep = Object.fromEntries(http.map((s) => [s.step, s]));
    expect(byStep['conflicting acquire']?.body).toMatchObject({ code: 'claim_held' });
    expect(byStep['wait in queue']?.body).toMatchObject({ status: 'queued', position: 1 });
    expect(byStep['replayed acquire']?.headers['idempotent-replayed']).toBe('true');
    expect(byStep['waiter granted']?.body).toMatchObject({ results: [{ status: 'held' }] });
    expect(byStep['holder lost']?.body).toMatchObject({ results: [{ status: 'lost' }] });
    expect(byStep['read new holder']?.body).toMatchObject({ holder: 'worker-b', status: 'held' });
    expect(byStep['ack after discard']?.body).toMatchObject({ type: 'gone_error', code: 'stale_token' });
  });

  it.each(['msw', 'dispatcherRequest', 'dispatcherFetch'])('%s answers exactly as real HTTP does', (name) => {
    const want = normalize(transcripts.http);
    const got = normalize(transcripts[name]);
    expect(got).toEqual(want);
  });

  it('keeps references: request_id equals Request-Id, the released claim is the waiter’s', () => {
    const steps = normalize(transcripts.msw ?? []);
    for (const step of steps) {
      const body = step.body as { request_id?: string } | undefined;
      if (step.status >= 400) expect(body?.request_id).toBe(step.headers['request-id']);
    }
    const byStep = Object.fromEntries(steps.map((s) => [s.step, s.body as { claimId?: string }]));
    expect(byStep.release?.claimId).toBe(byStep['wait in queue']?.claimId);
    expect(byStep['read holder']?.claimId).toBe(byStep.acquire?.claimId);
  });
});

describe('odd requests, every transport: repeated headers and HEAD', () => {
  beforeAll(async () => {
    // Each transport on a fresh server, so the transcripts start from the same state.
    {
      const leasehold = createLeaseholdHandlers({ baseUrl: 'https://api.test/api' });
      const mswServer = setupServer(...leasehold.handlers);
      mswServer.listen({ onUnhandledRequest: 'error' });
      try {
        odd.msw = await runOddRequests(pairsWithFetch('https://api.test/api', fetch), leasehold.server.control, 'https://api.test/api');
      } finally {
        mswServer.close();
      }
    }
    for (const [name, sendOf] of [
      ['http', (url: string) => pairsWithUndici(url)],
      ['httpFetch', (url: string) => pairsWithFetch(url, fetch)],
    ] as const) {
      const server = createLeaseholdMockServer();
      const listener = await listen(server, { port: 0 });
      try {
        odd[name] = await runOddRequests(sendOf(listener.url), server.control, listener.url);
      } finally {
        await listener.close();
      }
    }
    const mounted = new LeaseholdDispatcher({ baseUrl: 'https://leasehold.test/mount' });
    odd.dispatcherRequest = await runOddRequests(pairsWithUndici('https://leasehold.test/mount', mounted), mounted.server.control, 'https://leasehold.test/mount');
    const root = new LeaseholdDispatcher({ baseUrl: 'https://leasehold.test' });
    odd.dispatcherFetch = await runOddRequests(pairsWithFetch('https://leasehold.test', undiciFetch as unknown as typeof fetch, { dispatcher: root }), root.server.control, 'https://leasehold.test');
  });

  it('refuses an ambiguous Authorization or Content-Type with 400 and answers HEAD without a body (the transcript is not vacuous)', () => {
    const http = odd.http ?? [];
    const summary = Object.fromEntries(http.map((s) => [s.step, `${s.status} ${(s.body as { code?: string } | undefined)?.code ?? (s.body === undefined ? '(no body)' : '')}`.trim()]));
    expect(summary).toEqual({
      'two identical Authorization lines': '400 ambiguous_header',
      'two different Authorization lines': '400 ambiguous_header',
      'one Authorization line with a comma': '400 ambiguous_header',
      'an unknown and a known key': '400 ambiguous_header',
      'two identical Content-Type lines': '400 ambiguous_header',
      'one Content-Type line with two types': '400 ambiguous_header',
      'a quoted comma in one Content-Type': '201',
      'nothing was acquired by the refused requests': '200',
      'two Idempotency-Key lines make one key': '201',
      'the joined key replays': '201',
      'a task to read': '201',
      'two If-Match lines are one list': '200',
      'HEAD of a task': '200 (no body)',
      'HEAD of a missing task': '404 (no body)',
      'HEAD without a key': '401 (no body)',
      'HEAD with two keys': '400 (no body)',
      'HEAD of a POST-only path': '405 (no body)',
      'HEAD of no path': '404 (no body)',
      'HEAD of the claim list': '200 (no body)',
      'HEAD of the spec': '200 (no body)',
    });
    const byStep = Object.fromEntries(http.map((s) => [s.step, s]));
    expect((byStep['nothing was acquired by the refused requests']?.body as { data: Array<{ key: string }> }).data.map((c) => c.key)).toEqual(['c']);
    expect(byStep['the joined key replays']?.headers['idempotent-replayed']).toBe('true');
    expect(byStep['HEAD of a task']?.headers.etag).toMatch(/^"task-\d+-v\d+"$/);
    expect(byStep['HEAD of a POST-only path']?.headers.allow).toBe('POST');
    expect(byStep['two identical Authorization lines']?.body).toMatchObject({ param: 'Authorization', kind: 'ambiguous_header' });
  });

  it.each(['httpFetch', 'msw', 'dispatcherRequest', 'dispatcherFetch'])('%s answers them exactly as node:http does (repeated lines sent raw)', (name) => {
    expect(normalize(odd[name])).toEqual(normalize(odd.http));
  });
});

