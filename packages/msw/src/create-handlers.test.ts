import { http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLeaseholdHandlers } from './create-handlers.js';
import { createLeaseholdMockServer } from './mock-server.js';
import { acquire, call, heartbeat } from './test-kit.js';

const base = 'https://api.test/api';
const leasehold = createLeaseholdHandlers({ baseUrl: `${base}/` });
const mswServer = setupServer(...leasehold.handlers);
const unhandled: string[] = [];

beforeAll(() => mswServer.listen({ onUnhandledRequest: (request) => void unhandled.push(request.url) }));
afterEach(() => {
  mswServer.resetHandlers();
  unhandled.length = 0;
});
afterAll(() => mswServer.close());

describe('what the handlers take', () => {
  it('answers under the base path, and the bare base itself', async () => {
    expect(leasehold.baseUrl).toBe(base);
    expect((await heartbeat(base)).status).toBe(200);
    const spec = await call('GET', `${base}/openapi.json`);
    expect(spec.body.openapi).toBe('3.1.0');
    // The bare base is the server's landing page, linking what this server serves (no docs in a mock).
    const bare = await fetch(base);
    expect(bare.status).toBe(200);
    expect(bare.headers.get('content-type')).toMatch(/^text\/html/);
    const page = await bare.text();
    expect(page).toContain('href="/api/openapi.json"');
    expect(page).not.toContain('href="/api/docs');
    expect(unhandled).toEqual([]);
  });

  it.each([
    'https://api.test/api2/v1/claims/heartbeat',
    'https://api.test/apiv1/claims/heartbeat',
    'https://api.test/v1/claims/heartbeat',
    'https://api.test/API/v1/claims/heartbeat',
    'http://api.test/api/v1/claims/heartbeat',
    'https://api.test.other/api/v1/claims/heartbeat',
  ])('leaves %s unhandled', async (url) => {
    await call('POST', url, { body: { ttl: 30 } }).catch(() => undefined);
    expect(unhandled).toEqual([url]);
  });
});

describe('the server behind them', () => {
  it('is a new one on a manual clock by default', () => {
    expect(leasehold.server.control.clockMode).toBe('manual');
    expect(leasehold.scenario.now()).toBe(Date.UTC(2026, 0, 1));
  });

  it('can be built from options', () => {
    const real = createLeaseholdHandlers({ baseUrl: base, server: { clock: 'real' } });
    expect(real.server.control.clockMode).toBe('real');
    expect(() => real.scenario.advanceClock(1)).toThrow(/clock is real/);
    const later = createLeaseholdHandlers({ baseUrl: base, server: { startTime: Date.UTC(2030, 0, 1) } });
    expect(later.scenario.now()).toBe(Date.UTC(2030, 0, 1));
  });

  it('can be shared between base URLs (it sits at its root)', async () => {
    const server = createLeaseholdMockServer();
    const a = createLeaseholdHandlers({ baseUrl: 'https://a.test/x', server });
    const b = createLeaseholdHandlers({ baseUrl: 'https://b.test', server });
    mswServer.use(...a.handlers, ...b.handlers);
    expect(a.server).toBe(server);
    expect((await acquire('https://a.test/x', 'shared')).status).toBe(201);
    const again = await acquire('https://b.test', 'shared', { holder: 'other', session: 'sess_2' });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('claim_held');
  });
});

it('explains a body an earlier override already read', async () => {
  const quiet = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  mswServer.use(
    http.post(`${base}/v1/claims/heartbeat`, async ({ request }) => {
      await request.json();
    }),
  );
  const answer = await heartbeat(base);
  expect(answer.status).toBe(500);
  expect(answer.body.message).toMatch(/request\.clone\(\)/);
  quiet.mockRestore();
});
