import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Leasehold, LeaseLostError } from '../../packages/client/src/index.js';
import { LeaseholdDispatcher } from '../../packages/msw/src/dispatcher.js';
import { createLeaseholdHandlers } from '../../packages/msw/src/index.js';

const SPACE = '6f1c2b9e-8d4a-4c1e-9b7a-3e2f1d0c9b8a';
const RUN = '0b7e4c6a-1f2d-4e3b-8a9c-5d6e7f8a9b0c';
const base = 'https://api.test/api';
const SAFE_FAKES = ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'] as const;

const leasehold = createLeaseholdHandlers({ baseUrl: base });
const { scenario, server } = leasehold;
const mswServer = setupServer(...leasehold.handlers);
const clients: Leasehold[] = [];

function client(holder = 'worker-1'): Leasehold {
  const lh = new Leasehold({ baseUrl: base, apiKey: 'lh_test_admin', fetch, session: `sess_${holder}` });
  clients.push(lh);
  return lh;
}

/** Lets `ms` pass on both clocks: the server's manual clock and the client's fake timers. */
async function elapse(ms: number): Promise<void> {
  scenario.advanceClock(ms);
  await vi.advanceTimersByTimeAsync(ms);
}

let keyCounter = 0;
const freshKey = () => `reports/${++keyCounter}`;

beforeAll(() => mswServer.listen({ onUnhandledRequest: 'error' }));
afterEach(async () => {
  await Promise.all(clients.splice(0).map((lh) => lh.close({ releaseLeases: false })));
  vi.useRealTimers();
  scenario.reset();
  mswServer.resetHandlers();
});
afterAll(() => mswServer.close());

describe('the client in fetch mode, through MSW', () => {
  it('runs work under a claim and releases it', async () => {
    const lh = client();
    const result = await lh.space(SPACE).run(RUN, { holder: 'worker-1' }).claim(freshKey()).run(async (lease) => lease.fence);
    expect(result).toBe(server.control.stats().fence);
    expect(server.control.stats().held).toBe(0);
  });

  it('rides out a 503 burst (Retry-After honoured under fake timers)', async () => {
    vi.useFakeTimers({ toFake: [...SAFE_FAKES] });
    scenario.failNext('acquireSpaceClaim', { status: 503, times: 2 });
    const lh = client();
    const work = lh.space(SPACE).run(RUN, { holder: 'worker-1' }).claim(freshKey()).run(() => 'done');
    await vi.advanceTimersByTimeAsync(5_000);
    await expect(work).resolves.toBe('done');
    expect(scenario.faults()).toEqual([]);
    expect(server.control.stats().held).toBe(0);
  });

  it('retries a dropped acquire with the same idempotency key: one lease, not two', async () => {
    vi.useFakeTimers({ toFake: [...SAFE_FAKES] });
    scenario.dropNextResponse('acquireSpaceClaim');
    const lh = client();
    const pending = lh.space(SPACE).run(RUN, { holder: 'worker-1' }).claim(freshKey()).tryAcquire();
    await vi.advanceTimersByTimeAsync(5_000);
    const lease = await pending;
    expect(lease?.status).toBe('held');
    expect(server.control.stats().held).toBe(1);
    await lease?.release();
  });

  it('stops the work when the heartbeat reports the lease lost', async () => {
    vi.useFakeTimers({ toFake: [...SAFE_FAKES] });
    const lost = scenario.loseNextLease('space');
    const lh = client();
    let sawAbort = false;
    const work = lh
      .space(SPACE)
      .run(RUN, { holder: 'worker-1' })
      .claim(freshKey())
      .run(
        (lease) =>
          new Promise<void>((resolve) =>
            lease.signal.addEventListener('abort', () => {
              sawAbort = true;
              resolve();
            }),
          ),
      );
    work.catch(() => undefined);
    await vi.advanceTimersByTimeAsync(30_000);
    await expect(work).rejects.toBeInstanceOf(LeaseLostError);
    expect(sawAbort).toBe(true);
    expect(typeof (await lost)).toBe('string');
  });

  it('a waiter gets the key once the crashed holder’s lease expires on the server clock', async () => {
    vi.useFakeTimers({ toFake: [...SAFE_FAKES] });
    const key = freshKey();
    const crashed = client('crashed');
    await crashed.space(SPACE).run(RUN, { holder: 'crashed' }).claim(key).acquire();
    await crashed.close({ releaseLeases: false });
    const waiter = client('waiter');
    const acquiring = waiter.space(SPACE).run(RUN, { holder: 'waiter' }).claim(key).acquire();
    await vi.advanceTimersByTimeAsync(1_000);
    expect((await waiter.space(SPACE).claims.get(key)).holder).toBe('crashed');
    // Move the server clock and the client's timers together, so the waiter keeps heartbeating
    // (holding its place) while the crashed holder's lease runs out.
    for (let i = 0; i < 4; i++) await elapse(10_000);
    const lease = await acquiring;
    expect(lease.status).toBe('held');
    expect((await waiter.space(SPACE).claims.get(key)).holder).toBe('waiter');
  });
});

describe('the client on undici, through LeaseholdDispatcher', () => {
  it('sends, receives and acks spool messages', async () => {
    const dispatcher = new LeaseholdDispatcher({ baseUrl: 'https://spool.test' });
    const lh = new Leasehold({ baseUrl: 'https://spool.test', apiKey: 'lh_test_admin', dispatcher });
    clients.push(lh);
    await lh.spool('billing').create();
    const invoices = lh.spool('billing').queue('invoices');
    await invoices.put({ leaseTimeoutSeconds: 60 });
    await invoices.send({ invoiceId: 'inv_1' });
    const lease = await invoices.receive();
    expect(lease?.message.body).toEqual({ invoiceId: 'inv_1' });
    await lease?.ack();
    expect(await invoices.receive()).toBeNull();
    expect(dispatcher.server.control.stats()).toMatchObject({ held: 0, messages: 0 });
  });
});
