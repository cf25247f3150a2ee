import { delay, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it, vi } from 'vitest';
import { createLeaseholdHandlers } from '../../packages/msw/src/index.js';

const base = 'https://api.test';
const leasehold = createLeaseholdHandlers({ baseUrl: base });
const mswServer = setupServer(...leasehold.handlers);

beforeAll(() => mswServer.listen({ onUnhandledRequest: 'error' }));
// The safe list: everything a lease test needs, never queueMicrotask (faking it hangs MSW).
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
  leasehold.scenario.reset();
  mswServer.resetHandlers();
});
afterAll(() => mswServer.close());

const heartbeat = () =>
  fetch(`${base}/v1/claims/heartbeat`, {
    method: 'POST',
    headers: { authorization: 'Bearer lh_test_admin', 'content-type': 'application/json' },
    body: JSON.stringify({ ttl: 30 }),
  });

/** Settles `promise` or reports that it is still pending. */
async function state<T>(promise: Promise<T>): Promise<'pending' | 'settled'> {
  return Promise.race([promise.then(() => 'settled' as const), Promise.resolve().then(() => 'pending' as const)]);
}

it('MSW answers under fake timers', async () => {
  expect((await heartbeat()).status).toBe(200);
});

it('an MSW delay() in an override waits for advanceTimersByTimeAsync', async () => {
  mswServer.use(
    leasehold.http.post('/v1/claims/heartbeat', async () => {
      await delay(5_000);
      return HttpResponse.json({ object: 'list', results: [] });
    }),
  );
  const pending = heartbeat();
  await vi.advanceTimersByTimeAsync(4_999);
  expect(await state(pending)).toBe('pending');
  await vi.advanceTimersByTimeAsync(1);
  expect((await pending).status).toBe(200);
});

it('injected latency waits for advanceTimersByTimeAsync too', async () => {
  leasehold.scenario.addLatency('heartbeatClaims', '3s');
  const pending = heartbeat();
  await vi.advanceTimersByTimeAsync(2_000);
  expect(await state(pending)).toBe('pending');
  await vi.advanceTimersByTimeAsync(1_000);
  expect((await pending).status).toBe(200);
});

it('fake timers and the manual server clock are independent', async () => {
  const before = leasehold.scenario.now();
  await vi.advanceTimersByTimeAsync(60_000);
  expect(leasehold.scenario.now()).toBe(before);
  leasehold.scenario.advanceClock('1m');
  expect(leasehold.scenario.now()).toBe(before + 60_000);
});
