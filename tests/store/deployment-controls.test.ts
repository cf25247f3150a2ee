/**
 * Test controls that are deployment state act on every server process sharing one PostgreSQL:
 * faults armed through one server hit requests on the other (`times` counted across both),
 * clearing disarms both, suspension, primary change and the clock offset are rows — and a
 * per-credential rate limit is one budget across processes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLeaseholdServer, listen, type LeaseholdServer, type NodeListener } from '../../packages/server/src/index.js';
import { SqlStore, createPgDriver, type Store } from '../../packages/server/src/store/index.js';
import { DEFAULT_KEYS } from '../../packages/server/src/engine/index.js';
import { createTestDatabase } from '../support/postgres-database.js';

let drop: () => Promise<void>;
const servers: { server: LeaseholdServer<Store>; listener: NodeListener }[] = [];

beforeAll(async () => {
  const db = await createTestDatabase();
  drop = db.drop;
  for (let i = 0; i < 2; i++) {
    const store = await SqlStore.open(createPgDriver({ url: db.url, poolSize: 4 }), { keys: DEFAULT_KEYS, sweepIntervalMs: 0, credentialCacheMs: 0 });
    const server = createLeaseholdServer({ store, control: true });
    servers.push({ server, listener: await listen(server, { port: 0 }) });
  }
}, 60_000);

afterAll(async () => {
  for (const { server, listener } of servers) {
    await listener.close();
    await server.close();
  }
  await drop?.();
});

const [A, B] = [0, 1];
const url = (i: number, path: string) => `${servers[i]?.listener.url}${path}`;
const heartbeat = (i: number) =>
  fetch(url(i, '/v1/claims/heartbeat'), {
    method: 'POST',
    headers: { authorization: 'Bearer lh_test_admin', 'content-type': 'application/json' },
    body: JSON.stringify({ ttl: 30 }),
  });
const control = (i: number, path: string, body?: unknown) =>
  fetch(url(i, `/_control${path}`), {
    method: body === undefined ? 'DELETE' : 'POST',
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

describe('deployment-wide test controls on PostgreSQL', () => {
  it('a fault armed through one process hits the other, times counted across the deployment, with the shared defaults', async () => {
    const armed = await control(A, '/faults', { operationId: 'heartbeatClaims', status: 503, times: 2 });
    expect(armed.status).toBe(201);
    expect(((await armed.json()) as { rule: { retryAfterSeconds: number } }).rule.retryAfterSeconds).toBe(1);
    const first = await heartbeat(B);
    expect(first.status).toBe(503);
    expect(first.headers.get('retry-after')).toBe('1');
    expect((await heartbeat(A)).status).toBe(503);
    expect((await heartbeat(B)).status).toBe(200);
    expect((await heartbeat(A)).status).toBe(200);
    expect(await servers[B]?.server.control.faults()).toEqual([]);
  });

  it('clearing through one process disarms the other', async () => {
    expect((await control(B, '/faults', { operationId: 'heartbeatClaims', status: 500, times: 100 })).status).toBe(201);
    expect((await heartbeat(A)).status).toBe(500);
    const cleared = await control(A, '/faults');
    expect(cleared.status).toBe(200);
    expect((await heartbeat(B)).status).toBe(200);
  });

  it('refuses a Retry-After on a status that has none, as 400 invalid_request', async () => {
    const refused = await control(A, '/faults', { status: 409, retryAfterSeconds: 2, times: 1 });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { code: string; param: string })).toMatchObject({ code: 'invalid_request', param: 'retryAfterSeconds' });
  });

  it('suspension through one process refuses on the other', async () => {
    await servers[A]?.server.control.suspendAccount('acct_demo', true);
    expect((await heartbeat(B)).status).toBe(402);
    await servers[A]?.server.control.suspendAccount('acct_demo', false);
    expect((await heartbeat(B)).status).toBe(200);
  });

  it('a rate limit is one budget per credential across processes', async () => {
    await servers[A]?.server.control.setRateLimit('lh_test_other', 2);
    const call = (i: number) =>
      fetch(url(i, '/v1/claims/heartbeat'), {
        method: 'POST',
        headers: { authorization: 'Bearer lh_test_other', 'content-type': 'application/json' },
        body: JSON.stringify({ ttl: 30 }),
      });
    const statuses = [];
    for (const i of [A, B, A, B]) statuses.push((await call(i)).status);
    // Two tokens in the bucket for both processes together (a refill during the loop may add one).
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(1);
    expect(statuses.slice(0, 2)).toEqual([200, 200]);
    await servers[A]?.server.control.setRateLimit('lh_test_other', null);
  });
});
