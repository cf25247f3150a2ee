// The user's test suite: the same worker, against the whole API mocked by `@leasehold/msw`
// (MSW intercepts global fetch; the client gets `fetch`).
import { createLeaseholdHandlers, type LeaseholdHandlers } from '@leasehold/msw';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runWorker, SPACE, RUN } from '../src/worker.js';
import { Leasehold } from '@leasehold/client';

const BASE_URL = 'https://leasehold.test/api';
const mswServer = setupServer();
let leasehold: LeaseholdHandlers;

beforeAll(() => mswServer.listen({ onUnhandledRequest: 'error' }));
beforeEach(() => {
  leasehold = createLeaseholdHandlers({ baseUrl: BASE_URL });
  mswServer.resetHandlers(...leasehold.handlers);
});
afterAll(() => mswServer.close());

describe('the worker, against @leasehold/msw', () => {
  it('takes a key, works a task, consumes a message and leaves nothing held', async () => {
    const report = await runWorker({ baseUrl: BASE_URL, fetch });

    expect(report).toMatchObject({ fence: 1, contended: null, task: { status: 'Done' }, message: { job: 42 } });
    expect(report.notFound).toMatchObject({ name: 'NotFoundError', status: 404 });
    expect(leasehold.server.control.stats()).toMatchObject({ held: 0, messages: 0 });
  });

  it('sees an injected 503 burst through, and a crashed holder’s lease expire on the manual clock', async () => {
    leasehold.scenario.failNext('acquireSpaceClaim', { status: 503, times: 1 });
    const crashed = new Leasehold({ baseUrl: BASE_URL, apiKey: 'lh_test_admin', fetch, session: 'sess_crashed' });
    await crashed.space(SPACE).run(RUN, { holder: 'crashed' }).claim('reports/2026-11').acquire();
    await crashed.close({ releaseLeases: false });

    leasehold.scenario.advanceClock('31s');
    const report = await runWorker({ baseUrl: BASE_URL, fetch });
    expect(report.fence).toBe(2);
  });
});
