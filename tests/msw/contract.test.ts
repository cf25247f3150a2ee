import { setupServer } from 'msw/node';
import { fetch as undiciFetch, request as undiciRequest, type Dispatcher } from 'undici';
import { beforeAll, describe, expect, it } from 'vitest';
import { LeaseholdDispatcher } from '../../packages/msw/src/dispatcher.js';
import { createLeaseholdHandlers, createLeaseholdMockServer } from '../../packages/msw/src/index.js';
import { normalize } from './support/normalize.js';
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

const transcripts: Record<string, Step[]> = {};

beforeAll(async () => {
  // 1. MSW handlers, global fetch, a base URL with a mount prefix.
  {
    const leasehold = createLeaseholdHandlers({ baseUrl: 'https://api.test/api' });
    const mswServer = setupServer(...leasehold.handlers);
    mswServer.listen({ onUnhandledRequest: 'error' });
    try {
      transcripts.msw = await runScriptedSequence(sendWithFetch('https://api.test/api', fetch), leasehold.server.control);
    } finally {
      mswServer.close();
    }
  }
  // 2. Real HTTP: the same kind of server on node:http, port 0, global fetch.
  {
    const server = createLeaseholdMockServer();
    const listener = await server.listen({ port: 0 });
    try {
      transcripts.http = await runScriptedSequence(sendWithFetch(listener.url, fetch), server.control);
    } finally {
      await listener.close();
    }
  }
  // 3. The undici dispatcher, with undici.request.
  {
    const dispatcher = new LeaseholdDispatcher({ baseUrl: 'https://leasehold.test/mount' });
    transcripts.dispatcherRequest = await runScriptedSequence(sendWithUndici('https://leasehold.test/mount', dispatcher), dispatcher.server.control);
  }
  // 4. The undici dispatcher, with undici's fetch.
  {
    const dispatcher = new LeaseholdDispatcher({ baseUrl: 'https://leasehold.test' });
    const send = sendWithFetch('https://leasehold.test', undiciFetch as unknown as typeof fetch, { dispatcher });
    transcripts.dispatcherFetch = await runScriptedSequence(send, dispatcher.server.control);
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
