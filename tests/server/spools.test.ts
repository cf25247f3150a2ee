/** Spools over real HTTP: the renew seed page, reset semantics, receive/ack/nack/discard and stale leases. */
import { afterEach, describe, expect, it } from 'vitest';
import {
  ADMIN,
  OTHER,
  READER,
  expectContract,
  expectError,
  expectStatus,
  startServer,
  stopServers,
  type TestServer,
} from '../support/leasehold-harness.js';
import { observe } from '../support/response-contract.js';

afterEach(stopServers);

const T0 = Date.UTC(2026, 0, 1);
/** Spool expiries travel as RFC 3339 UTC in whole seconds. */
const utc = (ms: number) => new Date(ms).toISOString().replace(/\.000Z$/, 'Z');

function renew(h: TestServer, lease: string, spool = 'billing') {
  return h.call('renewSpoolLease', { path: { spool }, headers: { 'Spooler-Lease': lease } });
}
function ack(h: TestServer, lease: string) {
  return h.call('ackMessage', { path: { spool: 'billing' }, headers: { 'Spooler-Lease': lease } });
}
function nack(h: TestServer, lease: string, delaySeconds?: number) {
  return h.call('nackMessage', { path: { spool: 'billing' }, headers: { 'Spooler-Lease': lease }, json: delaySeconds === undefined ? undefined : { delaySeconds } });
}
function receive(h: TestServer, queue = 'invoices') {
  return h.call('receiveMessage', { path: { spool: 'billing', queue } });
}

describe('the spool renew seed page', () => {
  it('renews with curl -si -X POST .../spools/<spool>/renew -H "Spooler-Lease: <lease>": 204 and the new expiry', async () => {
    const h = await startServer();
    await h.createQueue('billing', 'invoices', 30);
    await h.sendMessage('billing', 'invoices');
    const { lease } = await h.receive('billing', 'invoices');
    await h.control.advanceClock(20_000);
    // curl sends no body and no Content-Type.
    const response = await fetch(`${h.origin}/v1/spools/billing/renew`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${ADMIN}`, 'Spooler-Lease': lease, 'User-Agent': 'curl/8.5.0', Accept: '*/*' },
    });
    const observed = await observe(response);
    expectContract('renewSpoolLease', observed);
    expect(observed.status).toBe(204);
    expect(observed.body).toBeUndefined();
    expect(observed.headers.get('spooler-lease-expires-at')).toBe(utc(T0 + 50_000));
    expect(observed.headers.get('spooler-lease-timeout')).toBe('30');
  });

  it('resets to the queue\'s current timeout: after a shorter timeout the new expiry lands earlier', async () => {
    const h = await startServer();
    await h.createQueue('billing', 'invoices', 300);
    await h.sendMessage('billing', 'invoices');
    const { lease, answer } = await h.receive('billing', 'invoices');
    expect(answer.headers.get('spooler-lease-expires-at')).toBe(utc(T0 + 300_000));
    await h.control.advanceClock(60_000);
    expectStatus(await h.call('putQueue', { path: { spool: 'billing', queue: 'invoices' }, json: { leaseTimeoutSeconds: 20 } }), 200);
    const renewed = await renew(h, lease);
    expect(renewed.headers.get('spooler-lease-expires-at')).toBe(utc(T0 + 80_000));
    expect(renewed.headers.get('spooler-lease-timeout')).toBe('20');
    await h.control.advanceClock(20_000);
    expectError(await renew(h, lease), 410, 'stale_token', 'Spooler-Lease');
    // The message went back to its queue.
    expect((await receive(h)).body.deliveryCount).toBe(2);
  });

  it('drops the expiry when the timeout is removed (null): the header is absent and the lease never expires', async () => {
    const h = await startServer();
    await h.createQueue('billing', 'invoices', 30);
    await h.sendMessage('billing', 'invoices');
    const { lease } = await h.receive('billing', 'invoices');
    expectStatus(await h.call('putQueue', { path: { spool: 'billing', queue: 'invoices' }, json: { leaseTimeoutSeconds: null } }), 200);
    await h.control.advanceClock(10_000);
    const renewed = await renew(h, lease);
    expectStatus(renewed, 204);
    expect(renewed.headers.get('spooler-lease-expires-at')).toBeNull();
    expect(renewed.headers.get('spooler-lease-timeout')).toBeNull();
    await h.control.advanceClock(7 * 24 * 3600_000);
    expectStatus(await renew(h, lease), 204);
    expectStatus(await ack(h, lease), 204);
  });

  it('a timeout change applies at the next renew: until then the lease keeps its deadline', async () => {
    const h = await startServer();
    await h.createQueue('billing', 'invoices', 30);
    await h.sendMessage('billing', 'invoices');
    const { lease } = await h.receive('billing', 'invoices');
    expectStatus(await h.call('putQueue', { path: { spool: 'billing', queue: 'invoices' }, json: { leaseTimeoutSeconds: 300 } }), 200);
    await h.control.advanceClock(30_000);
    expectError(await renew(h, lease), 410, 'stale_token');
  });

  it('renewing on a schedule is how a worker learns its message was discarded: 410 stale_token', async () => {
    const h = await startServer();
    await h.createQueue('billing', 'invoices', 30);
    const message = await h.sendMessage('billing', 'invoices');
    const { lease } = await h.receive('billing', 'invoices');
    expectStatus(await renew(h, lease), 204);
    expectStatus(await h.call('discardMessage', { path: { spool: 'billing', handle: message.handle } }), 204);
    expectError(await renew(h, lease), 410, 'stale_token');
  });
});

describe('receive', () => {
  it('leases the oldest visible message with Spooler-Lease, its expiry and timeout; 204 when empty', async () => {
    const h = await startServer();
    await h.createQueue('billing', 'invoices', 45);
    expectStatus(await receive(h), 204);
    const first = await h.sendMessage('billing', 'invoices', { n: 1 });
    await h.sendMessage('billing', 'invoices', { n: 2 });
    const got = await receive(h);
    expectStatus(got, 200);
    expect(got.body).toMatchObject({ object: 'message', id: first.id, handle: first.handle, body: { n: 1 }, deliveryCount: 1 });
    expect(got.body.claimId).toMatch(/^clm_/);
    expect(got.headers.get('spooler-lease')).toMatch(/^[A-Za-z0-9_-]{16,256}$/);
    expect(got.headers.get('spooler-lease-expires-at')).toBe(utc(T0 + 45_000));
    expect(got.headers.get('spooler-lease-timeout')).toBe('45');
    expect((await receive(h)).body.body).toEqual({ n: 2 });
    expectStatus(await receive(h), 204);
  });

  it('omits the expiry headers on a queue without a lease timeout', async () => {
    const h = await startServer();
    await h.createQueue('billing', 'invoices', null);
    await h.sendMessage('billing', 'invoices');
    const got = await receive(h);
    expect(got.headers.get('spooler-lease')).toBeTruthy();
    expect(got.headers.get('spooler-lease-expires-at')).toBeNull();
    expect(got.headers.get('spooler-lease-timeout')).toBeNull();
  });

  it('keeps a delayed message invisible until its delay has passed', async () => {
    const h = await startServer();
    await h.createQueue('billing', 'invoices');
    expectStatus(await h.call('sendMessage', { path: { spool: 'billing', queue: 'invoices' }, json: { body: 'later', delaySeconds: 60 } }), 201);
    await h.control.advanceClock(59_999);
    expectStatus(await receive(h), 204);
    await h.control.advanceClock(1);
    expect((await receive(h)).body.body).toBe('later');
  });
});

describe('settling', () => {
  it('nack puts the message back; the next receive gets it with deliveryCount + 1', async () => {
    const h = await startServer();
    await h.createQueue('billing', 'invoices');
    const sent = await h.sendMessage('billing', 'invoices');
    const first = await h.receive('billing', 'invoices');
    expect(first.answer.body.deliveryCount).toBe(1);
    expectStatus(await nack(h, first.lease), 204);
    const second = await h.receive('billing', 'invoices');
    expect(second.answer.body).toMatchObject({ id: sent.id, handle: sent.handle, deliveryCount: 2 });
    expect(second.lease).not.toBe(first.lease);
    expect(second.answer.body.fence).toBeGreaterThan(first.answer.body.fence);
    expectError(await nack(h, first.lease), 410, 'stale_token');
  });

  it('nack with delaySeconds hides the message for that long', async () => {
    const h = await startServer();
    await h.createQueue('billing', 'invoices');
    await h.sendMessage('billing', 'invoices');
    const { lease } = await h.receive('billing', 'invoices');
    expectStatus(await nack(h, lease, 30), 204);
    expectStatus(await receive(h), 204);
    await h.control.advanceClock(30_000);
    expect((await receive(h)).body.deliveryCount).toBe(2);
  });

  it('ack deletes the message: it is never delivered again and its handle is gone', async () => {
    const h = await startServer();
    await h.createQueue('billing', 'invoices');
    const sent = await h.sendMessage('billing', 'invoices');
    const { lease } = await h.receive('billing', 'invoices');
    expectStatus(await ack(h, lease), 204);
    expectError(await ack(h, lease), 410, 'stale_token');
    await h.control.advanceClock(3600_000);
    expectStatus(await receive(h), 204);
    expectError(await h.call('discardMessage', { path: { spool: 'billing', handle: sent.handle } }), 404, 'message_not_found');
  });

  it('an expired lease puts the message back for redelivery and stops settling', async () => {
    const h = await startServer();
    await h.createQueue('billing', 'invoices', 30);
    await h.sendMessage('billing', 'invoices');
    const { lease } = await h.receive('billing', 'invoices');
    await h.control.advanceClock(29_999);
    expectStatus(await renew(h, lease), 204);
    await h.control.advanceClock(30_000);
    expectError(await ack(h, lease), 410, 'stale_token');
    expect((await receive(h)).body.deliveryCount).toBe(2);
  });

  it('discard removes a ready message; a leased one is reported lost once by the heartbeat', async () => {
    const h = await startServer();
    await h.createQueue('billing', 'invoices');
    const ready = await h.sendMessage('billing', 'invoices', 'ready');
    const leased = await h.sendMessage('billing', 'invoices', 'leased');
    expectStatus(await h.call('discardMessage', { path: { spool: 'billing', handle: ready.handle } }), 204);
    const got = await h.receive('billing', 'invoices');
    expect(got.answer.body.id).toBe(leased.id);
    expectStatus(await h.call('discardMessage', { path: { spool: 'billing', handle: leased.handle } }), 204);
    expect((await h.call('heartbeatClaims', { json: { ttl: 30 } })).body.results).toEqual([{ claimId: got.answer.body.claimId, status: 'lost' }]);
    expect((await h.call('heartbeatClaims', { json: { ttl: 30 } })).body.results).toEqual([]);
    expectStatus(await receive(h), 204);
  });

  it('a primary change makes every outstanding lease stale and returns its message to the queue', async () => {
    const h = await startServer();
    await h.createQueue('billing', 'invoices');
    await h.sendMessage('billing', 'invoices');
    const { lease, answer } = await h.receive('billing', 'invoices');
    expect(await h.control.primaryChange()).toBe(1);
    for (const settle of [renew, ack, nack]) expectError(await settle(h, lease), 410, 'stale_token');
    expect((await h.call('heartbeatClaims', { json: { ttl: 30 } })).body.results).toEqual([{ claimId: answer.body.claimId, status: 'lost' }]);
    expect((await receive(h)).body).toMatchObject({ id: answer.body.id, deliveryCount: 2 });
  });

  it('a lease from another spool of the account settles nothing there (410)', async () => {
    const h = await startServer();
    await h.createQueue('billing', 'invoices');
    await h.createQueue('shipping', 'parcels');
    await h.sendMessage('billing', 'invoices');
    const { lease } = await h.receive('billing', 'invoices');
    expectError(await renew(h, lease, 'shipping'), 410, 'stale_token');
    expectStatus(await renew(h, lease), 204);
  });
});

describe('sessions and heartbeats', () => {
  it('resets spool leases on heartbeat, only for the session that received them', async () => {
    const h = await startServer();
    await h.createQueue('billing', 'invoices', 30);
    await h.sendMessage('billing', 'invoices', 'a');
    await h.sendMessage('billing', 'invoices', 'b');
    const alive = await h.receive('billing', 'invoices', { 'Leasehold-Session': 'alive' });
    const dead = await h.receive('billing', 'invoices', { 'Leasehold-Session': 'dead' });
    await h.control.advanceClock(20_000);
    const beat = await h.call('heartbeatClaims', { json: { ttl: 30, holderSession: 'alive' } });
    expect(beat.body.results).toEqual([{ claimId: alive.answer.body.claimId, status: 'held', expiresAt: T0 + 50_000 }]);
    await h.control.advanceClock(10_000);
    expectStatus(await renew(h, alive.lease), 204);
    expectError(await renew(h, dead.lease), 410, 'stale_token');
  });
});

describe('spools and queues', () => {
  it('creates a spool and its queues, reporting depth and leased counts', async () => {
    const h = await startServer();
    const spool = await h.call('createSpool', { json: { name: 'billing:eu_1-a' } });
    expect(spool.body).toEqual({ object: 'spool', name: 'billing:eu_1-a', queues: [], createdAt: utc(T0) });
    const created = await h.call('putQueue', { path: { spool: 'billing:eu_1-a', queue: 'invoices' }, json: { leaseTimeoutSeconds: 43200 } });
    expect(created.body).toEqual({ object: 'queue', spool: 'billing:eu_1-a', name: 'invoices', leaseTimeoutSeconds: 43200, depth: 0, leased: 0 });
    expectError(await h.call('putQueue', { path: { spool: 'billing:eu_1-a', queue: 'x' }, json: { leaseTimeoutSeconds: 43201 } }), 400, undefined, 'leaseTimeoutSeconds');
    expectError(await h.call('createSpool', { json: { name: 'x'.repeat(64) } }), 400, undefined, 'name');
  });

  it('keeps spools per account: another account neither sees them (404) nor collides with their names', async () => {
    const h = await startServer();
    await h.createQueue('billing', 'invoices');
    const message = await h.sendMessage('billing', 'invoices');
    expectError(await h.call('sendMessage', { key: OTHER, path: { spool: 'billing', queue: 'invoices' }, json: { body: 1 } }), 404, 'spool_not_found');
    expectError(await h.call('receiveMessage', { key: OTHER, path: { spool: 'billing', queue: 'invoices' } }), 404, 'spool_not_found');
    expectError(await h.call('discardMessage', { key: OTHER, path: { spool: 'billing', handle: message.handle } }), 404, 'spool_not_found');
    await h.createQueue('billing', 'invoices', 30, OTHER);
    expectStatus(await h.call('receiveMessage', { key: OTHER, path: { spool: 'billing', queue: 'invoices' } }), 204);
    expectError(await h.call('receiveMessage', { key: READER, path: { spool: 'billing', queue: 'invoices' } }), 403, 'permission_denied');
  });
});
