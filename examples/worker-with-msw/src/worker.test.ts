import { Leasehold, PermissionDeniedError } from '@leasehold/client';
import { createLeaseholdHandlers, leaseholdError, type LeaseholdHandlers } from '@leasehold/msw';
import { LeaseholdDispatcher } from '@leasehold/msw/dispatcher';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryReportStore } from './report-store.js';
import { buildReports, type ReportWorkerOptions } from './worker.js';

const BASE_URL = 'https://leasehold.test/api';
const SPACE = '6f1c2b9e-8d4a-4c1e-9b7a-3e2f1d0c9b8a';
const RUN = '0b7e4c6a-1f2d-4e3b-8a9c-5d6e7f8a9b0c';
const MONTHS = ['2026-09', '2026-10', '2026-11'];

// MSW intercepts global fetch: the client must use its fetch transport (`fetch` option).
const mswServer = setupServer();
let leasehold: LeaseholdHandlers;
let store: MemoryReportStore;
const clients: Leasehold[] = [];

function client(holder: string): Leasehold {
  const lh = new Leasehold({ baseUrl: BASE_URL, apiKey: 'lh_test_admin', fetch, session: `sess_${holder}` });
  clients.push(lh);
  return lh;
}

function worker(holder: string, render: ReportWorkerOptions['render'] = async (month) => `report ${month}`): ReportWorkerOptions {
  return { spaceId: SPACE, runId: RUN, holder, store, render };
}

beforeAll(() => mswServer.listen({ onUnhandledRequest: 'error' }));
beforeEach(() => {
  // A fresh in-memory Leasehold per test: no state leaks between tests.
  leasehold = createLeaseholdHandlers({ baseUrl: BASE_URL });
  mswServer.resetHandlers(...leasehold.handlers);
  store = new MemoryReportStore();
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((lh) => lh.close({ releaseLeases: false })));
  vi.useRealTimers();
});
afterAll(() => mswServer.close());

describe('buildReports', () => {
  it('builds every month and releases every lease', async () => {
    const pass = await buildReports(client('w1'), MONTHS, worker('w1'));

    expect(pass).toEqual({ built: MONTHS, skipped: [], lost: [] });
    expect([...store.reports.keys()]).toEqual(MONTHS.map((m) => `reports/${m}`));
    expect(leasehold.server.control.stats().held).toBe(0); // the worker released its leases
  });

  it('skips the months another worker holds', async () => {
    const other = client('w2');
    await other.space(SPACE).run(RUN, { holder: 'w2' }).claim('reports/2026-10').acquire();

    const pass = await buildReports(client('w1'), MONTHS, worker('w1'));

    expect(pass).toEqual({ built: ['2026-09', '2026-11'], skipped: ['2026-10'], lost: [] });
  });

  it('picks up a crashed worker’s month once its lease expires', async () => {
    const crashed = client('crashed');
    await crashed.space(SPACE).run(RUN, { holder: 'crashed' }).claim('reports/2026-11').acquire();
    await crashed.close({ releaseLeases: false }); // dies without releasing

    expect((await buildReports(client('w1'), ['2026-11'], worker('w1'))).skipped).toEqual(['2026-11']);

    leasehold.scenario.advanceClock('31s'); // the manual server clock: the unrenewed lease expires
    expect((await buildReports(client('w1'), ['2026-11'], worker('w1'))).built).toEqual(['2026-11']);
    expect(store.reports.get('reports/2026-11')?.fence).toBe(2); // a newer fence than the crashed holder's
  });

  it('rides out a 503 burst: the client honours Retry-After and retries', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'] });
    leasehold.scenario.failNext('acquireSpaceClaim', { status: 503, times: 2 }); // Retry-After: 1

    const pass = buildReports(client('w1'), ['2026-11'], worker('w1'));
    await vi.advanceTimersByTimeAsync(5_000);

    expect(await pass).toEqual({ built: ['2026-11'], skipped: [], lost: [] });
  });

  it('stops rendering and saves nothing when the heartbeat reports the lease lost', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'] });
    void leasehold.scenario.loseNextLease('space'); // the next grant is taken away at once
    const slowRender = (month: string, signal: AbortSignal) =>
      new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => resolve(`report ${month}`), 60_000);
        signal.addEventListener('abort', () => {
          clearTimeout(timer);
          reject(signal.reason);
        });
      });

    const pass = buildReports(client('w1'), ['2026-11'], worker('w1', slowRender));
    await vi.advanceTimersByTimeAsync(30_000); // long enough for the client's next heartbeat

    expect(await pass).toEqual({ built: [], skipped: [], lost: ['2026-11'] });
    expect(store.reports.size).toBe(0);
  });

  it('surfaces a one-off error answer (typed override)', async () => {
    mswServer.use(
      leasehold.http.post('/v1/spaces/{spaceId}/claims', ({ params }) =>
        params.spaceId === SPACE ? leaseholdError(403, { code: 'permission_denied' }) : undefined,
      ),
    );

    await expect(buildReports(client('w1'), ['2026-11'], worker('w1'))).rejects.toBeInstanceOf(PermissionDeniedError);
  });
});

describe('buildReports on the client’s default undici transport', () => {
  it('runs against LeaseholdDispatcher, sharing the same in-memory server', async () => {
    const dispatcher = new LeaseholdDispatcher({ baseUrl: BASE_URL, server: leasehold.server });
    const lh = new Leasehold({ baseUrl: BASE_URL, apiKey: 'lh_test_admin', dispatcher });
    clients.push(lh);
    const other = client('w2'); // through MSW, same server
    await other.space(SPACE).run(RUN, { holder: 'w2' }).claim('reports/2026-09').acquire();

    const pass = await buildReports(lh, MONTHS, worker('w1'));

    expect(pass).toEqual({ built: ['2026-10', '2026-11'], skipped: ['2026-09'], lost: [] });
  });
});
