import { setupServer } from 'msw/node';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LeaseholdDispatcher } from '../../packages/msw/src/dispatcher.js';
import { createLeaseholdHandlers } from '../../packages/msw/src/index.js';

const SPACE = '6f1c2b9e-8d4a-4c1e-9b7a-3e2f1d0c9b8a';
const SCOPE = '0b7e4c6a-1f2d-4e3b-8a9c-5d6e7f8a9b0c';
const headers = { authorization: 'Bearer lh_test_admin', 'content-type': 'application/json' };

function acquire(base: string, holder: string, idempotencyKey: string) {
  return fetch(`${base}/v1/spaces/${SPACE}/claims`, {
    method: 'POST',
    headers: { ...headers, 'idempotency-key': idempotencyKey },
    body: JSON.stringify({ key: 'nightly', scopeId: SCOPE, holder, holderSession: `sess_${holder}` }),
  });
}

describe('two handler sets', () => {
  const one = createLeaseholdHandlers({ baseUrl: 'https://one.test' });
  const two = createLeaseholdHandlers({ baseUrl: 'https://two.test' });
  const mswServer = setupServer(...one.handlers, ...two.handlers);
  beforeAll(() => mswServer.listen({ onUnhandledRequest: 'error' }));
  afterAll(() => mswServer.close());

  it('keep separate state: a claim held in one is free in the other', async () => {
    expect((await acquire('https://one.test', 'a', 'k1')).status).toBe(201);
    expect((await acquire('https://one.test', 'b', 'k2')).status).toBe(409);
    const inTwo = await acquire('https://two.test', 'b', 'k2');
    expect(inTwo.status).toBe(201);
    expect(((await inTwo.json()) as { fence: number }).fence).toBe(1);
    expect(one.server.control.stats().held).toBe(1);
    expect(two.server.control.stats().held).toBe(1);
  });

  it('keep separate clocks and faults', async () => {
    one.scenario.advanceClock('1h');
    expect(two.scenario.now()).toBe(Date.UTC(2026, 0, 1));
    one.scenario.failNext('acquireSpaceClaim', { times: 5 });
    expect((await acquire('https://two.test', 'c', 'k3')).status).toBe(409);
    expect(two.scenario.faults()).toEqual([]);
    one.scenario.clearFaults();
  });

  it('a fresh set per test (resetHandlers with new handlers) starts from empty state', async () => {
    const fresh = createLeaseholdHandlers({ baseUrl: 'https://one.test' });
    mswServer.resetHandlers(...fresh.handlers);
    try {
      expect((await acquire('https://one.test', 'z', 'k1')).status).toBe(201);
    } finally {
      mswServer.resetHandlers(...one.handlers, ...two.handlers);
    }
  });
});

it('two dispatchers keep separate state too', async () => {
  const one = new LeaseholdDispatcher();
  const two = new LeaseholdDispatcher();
  const send = (dispatcher: LeaseholdDispatcher, holder: string) =>
    request(`https://api.test/v1/spaces/${SPACE}/claims`, {
      dispatcher,
      method: 'POST',
      headers: { ...headers, 'idempotency-key': holder },
      body: JSON.stringify({ key: 'nightly', scopeId: SCOPE, holder, holderSession: `sess_${holder}` }),
    });
  expect((await send(one, 'a')).statusCode).toBe(201);
  expect((await send(one, 'b')).statusCode).toBe(409);
  expect((await send(two, 'b')).statusCode).toBe(201);
});
