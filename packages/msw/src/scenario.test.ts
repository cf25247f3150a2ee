import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLeaseholdHandlers } from './create-handlers.js';
import { acquire, call, heartbeat, idem, SPACE } from './test-kit.js';

const base = 'https://api.test';
const leasehold = createLeaseholdHandlers({ baseUrl: base });
const { scenario, server } = leasehold;
const mswServer = setupServer(...leasehold.handlers);

beforeAll(() => mswServer.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  vi.useRealTimers();
  scenario.reset();
  mswServer.resetHandlers();
});
afterAll(() => mswServer.close());

let keyCounter = 0;
const freshKey = () => `key-${++keyCounter}`;

describe('failNext', () => {
  it('answers the next N calls with 503 and Retry-After: 1, without running them', async () => {
    const key = freshKey();
    scenario.failNext('acquireSpaceClaim', { times: 2 });
    for (let i = 0; i < 2; i++) {
      const failed = await acquire(base, key);
      expect(failed.status).toBe(503);
      expect(failed.headers.get('retry-after')).toBe('1');
      expect(failed.body).toMatchObject({ type: 'unavailable_error', code: 'service_unavailable' });
    }
    expect((await call('GET', `${base}/v1/spaces/${SPACE}/claims/${key}`)).status).toBe(404);
    expect((await acquire(base, key)).status).toBe(201);
  });

  it.each([
    { options: { status: 429 }, retryAfter: '1', type: 'rate_limit_error' },
    { options: { status: 429, retryAfterSeconds: 7 }, retryAfter: '7', type: 'rate_limit_error' },
    { options: { status: 500 }, retryAfter: null, type: 'api_error' },
    { options: { status: 409 }, retryAfter: null, type: 'conflict_error' },
  ])('answers $options.status with Retry-After $retryAfter', async ({ options, retryAfter, type }) => {
    scenario.failNext('heartbeatClaims', options);
    const failed = await heartbeat(base);
    expect(failed.status).toBe(options.status);
    expect(failed.headers.get('retry-after')).toBe(retryAfter);
    expect(failed.body.type).toBe(type);
    expect((await heartbeat(base)).status).toBe(200);
  });

  it('matches by method and path prefix', async () => {
    scenario.failNext({ method: 'POST', pathPrefix: '/v1/claims' });
    expect((await call('GET', `${base}/v1/spaces/${SPACE}/claims`)).status).toBe(200);
    expect((await heartbeat(base)).status).toBe(503);
  });

  it.each([
    { options: { status: 200 }, error: RangeError },
    { options: { status: 409, retryAfterSeconds: 1 }, error: RangeError },
    { options: { times: 0 }, error: RangeError },
    { options: { times: 1.5 }, error: RangeError },
    { options: { probability: 2 }, error: RangeError },
  ])('refuses $options', ({ options, error }) => {
    expect(() => scenario.failNext('heartbeatClaims', options)).toThrow(error);
    expect(() => scenario.failNext({}, {})).toThrow(TypeError);
    expect(scenario.faults()).toEqual([]);
  });
});

describe('addLatency', () => {
  it('holds the answer until fake timers pass the latency', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'] });
    scenario.addLatency('heartbeatClaims', '2s');
    let answered = false;
    const pending = heartbeat(base).then((answer) => {
      answered = true;
      return answer;
    });
    await vi.advanceTimersByTimeAsync(1_999);
    expect(answered).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect((await pending).status).toBe(200);
    expect(answered).toBe(true);
  });

  it('stacks with a failure: slow, then 503', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    scenario.failNext('heartbeatClaims', { latency: 500 });
    const pending = heartbeat(base);
    await vi.advanceTimersByTimeAsync(500);
    expect((await pending).status).toBe(503);
  });
});

describe('dropNextResponse', () => {
  it('commits the write, then fails the call with a network error', async () => {
    const key = freshKey();
    const idempotencyKey = idem();
    scenario.dropNextResponse('acquireSpaceClaim');
    const body = { key, scopeId: '0b7e4c6a-1f2d-4e3b-8a9c-5d6e7f8a9b0c', holder: 'w', holderSession: 'sess_1' };
    const send = () => call('POST', `${base}/v1/spaces/${SPACE}/claims`, { headers: { 'idempotency-key': idempotencyKey }, body });
    await expect(send()).rejects.toThrow(TypeError);
    expect((await call('GET', `${base}/v1/spaces/${SPACE}/claims/${key}`)).body).toMatchObject({ key, status: 'held' });
    const retried = await send();
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(typeof retried.body.token).toBe('string');
  });
});

describe('losing leases', () => {
  it('loseLease(claimId): the next heartbeat reports it lost, once', async () => {
    const { body: claim } = await acquire(base, freshKey(), { session: 'sess_lose' });
    scenario.loseLease(claim.claimId);
    expect((await heartbeat(base, 'sess_lose')).body.results).toEqual([{ claimId: claim.claimId, status: 'lost' }]);
    expect((await heartbeat(base, 'sess_lose')).body.results).toEqual([]);
    expect(() => scenario.loseLease(claim.claimId)).toThrow(/No live lease/);
  });

  it('loseNextLease(): the acquirer gets its token, its next heartbeat says lost', async () => {
    const lost = scenario.loseNextLease();
    const granted = await acquire(base, freshKey(), { session: 'sess_next' });
    expect(granted.status).toBe(201);
    expect(granted.body.status).toBe('held');
    expect(await lost).toBe(granted.body.claimId);
    expect((await heartbeat(base, 'sess_next')).body.results).toEqual([{ claimId: granted.body.claimId, status: 'lost' }]);
  });

  it('loseNextLease(kind) waits for a grant of that kind (spool)', async () => {
    const lost = scenario.loseNextLease('spool');
    await call('POST', `${base}/v1/spools`, { headers: { 'idempotency-key': idem() }, body: { name: 'billing' } });
    await call('PUT', `${base}/v1/spools/billing/queues/invoices`, { body: { leaseTimeoutSeconds: 60 } });
    await call('POST', `${base}/v1/spools/billing/queues/invoices/messages`, { headers: { 'idempotency-key': idem() }, body: { body: { n: 1 } } });
    const space = await acquire(base, freshKey(), { session: 'sess_kind' });
    expect((await heartbeat(base, 'sess_kind')).body.results[0]).toMatchObject({ claimId: space.body.claimId, status: 'held' });
    const received = await call('POST', `${base}/v1/spools/billing/queues/invoices/receive`, { headers: { 'leasehold-session': 'sess_kind' } });
    expect(received.status).toBe(200);
    expect(await lost).toBe(received.body.claimId);
    const lease = received.headers.get('spooler-lease') ?? '';
    const ack = await call('POST', `${base}/v1/spools/billing/ack`, { headers: { 'spooler-lease': lease } });
    expect(ack.status).toBe(410);
    expect(ack.body.code).toBe('stale_token');
  });

  it('loseNextLease("task") takes the next task claim', async () => {
    const lost = scenario.loseNextLease('task');
    const created = await call('POST', `${base}/v1/tasks`, { headers: { 'idempotency-key': idem() }, body: { title: 't' } });
    const claimed = await call('POST', `${base}/v1/tasks/${created.body.id}/claim`, {
      headers: { 'if-match': created.headers.get('etag') ?? '', 'idempotency-key': idem(), 'leasehold-session': 'sess_task' },
    });
    expect(claimed.status).toBe(200);
    expect(await lost).toBe(claimed.body.claimId);
    expect((await heartbeat(base, 'sess_task')).body.results).toEqual([{ claimId: claimed.body.claimId, status: 'lost' }]);
  });

  it('reset() forgets a pending loseNextLease', async () => {
    void scenario.loseNextLease();
    scenario.reset();
    const granted = await acquire(base, freshKey(), { session: 'sess_reset' });
    expect((await heartbeat(base, 'sess_reset')).body.results[0]).toMatchObject({ claimId: granted.body.claimId, status: 'held' });
  });
});

describe('advanceClock', () => {
  it('expires a lease nobody renewed', async () => {
    const key = freshKey();
    await acquire(base, key, { leaseSeconds: 30 });
    const before = scenario.now();
    expect(scenario.advanceClock('29s')).toBe(before + 29_000);
    expect((await call('GET', `${base}/v1/spaces/${SPACE}/claims/${key}`)).status).toBe(200);
    scenario.advanceClock(1_000);
    expect((await call('GET', `${base}/v1/spaces/${SPACE}/claims/${key}`)).status).toBe(404);
    expect(server.control.now()).toBe(before + 30_000);
  });

  it('refuses a malformed duration', () => {
    expect(() => scenario.advanceClock('soon' as never)).toThrow(RangeError);
    expect(() => scenario.advanceClock(-1)).toThrow(RangeError);
  });
});
