/** Spools, queues, messages and spool leases through the operations interface, on every store. */
import { expect } from 'vitest';
import type { ReceivedMessage } from '../../packages/server/src/engine/index.js';
import { describeStores, type World } from './support/world.js';

async function queue(w: World, timeout: number | null = 30) {
  await w.ok((ops) => ops.spools.createSpool({ credential: w.admin, name: 'billing' }));
  return w.ok((ops) => ops.spools.putQueue({ credential: w.admin, spool: 'billing', queue: 'invoices', leaseTimeoutSeconds: timeout }));
}
const send = (w: World, body: unknown, delaySeconds?: number) =>
  w.ok((ops) => ops.spools.send({ credential: w.admin, spool: 'billing', queue: 'invoices', body, delaySeconds }));
const receive = (w: World) => w.ok((ops) => ops.spools.receive({ credential: w.admin, spool: 'billing', queue: 'invoices', holderSession: 's' }));

describeStores('spools', {
  'send, receive in order, renew, ack, nack, redelivery after expiry': async (w) => {
    const created = await queue(w);
    expect(created).toMatchObject({ created: true, queue: { depth: 0, leased: 0, leaseTimeoutSeconds: 30 } });
    expect(await w.run((ops) => ops.spools.createSpool({ credential: w.admin, name: 'billing' }))).toMatchObject({ code: 'spool_exists' });
    const updated = await w.ok((ops) => ops.spools.putQueue({ credential: w.admin, spool: 'billing', queue: 'invoices', leaseTimeoutSeconds: 20 }));
    expect(updated.created).toBe(false);
    await send(w, { n: 1, b: 'x' });
    await send(w, { n: 2 });
    await send(w, { n: 3 }, 60);
    const first = (await receive(w)) as ReceivedMessage;
    expect(first.message).toMatchObject({ body: { n: 1, b: 'x' }, deliveryCount: 1, fence: 1 });
    expect(first.leaseSeconds).toBe(20);
    await w.advance(10_000);
    const renewed = await w.ok((ops) => ops.spools.renew({ credential: w.admin, spool: 'billing', lease: first.lease }));
    expect(renewed.expiresAt).toBe((first.expiresAt as number) + 10_000);
    await w.ok((ops) => ops.spools.ack({ credential: w.admin, spool: 'billing', lease: first.lease }));
    expect(await w.run((ops) => ops.spools.ack({ credential: w.admin, spool: 'billing', lease: first.lease }))).toMatchObject({
      code: 'stale_token',
      status: 410,
    });
    const second = (await receive(w)) as ReceivedMessage;
    expect(second.message.body).toEqual({ n: 2 });
    expect(await receive(w)).toBeNull();
    await w.ok((ops) => ops.spools.nack({ credential: w.admin, spool: 'billing', lease: second.lease, delaySeconds: 5 }));
    expect(await receive(w)).toBeNull();
    await w.advance(5_000);
    const again = (await receive(w)) as ReceivedMessage;
    expect(again.message).toMatchObject({ body: { n: 2 }, deliveryCount: 2 });
    await w.advance(21_000);
    expect(await w.ok((ops) => ops.spools.getQueue({ credential: w.admin, spool: 'billing', queue: 'invoices' }))).toMatchObject({
      depth: 1,
      leased: 0,
    });
    expect(await w.run((ops) => ops.spools.renew({ credential: w.admin, spool: 'billing', lease: again.lease }))).toMatchObject({
      code: 'stale_token',
    });
    const third = (await receive(w)) as ReceivedMessage;
    expect(third.message).toMatchObject({ body: { n: 2 }, deliveryCount: 3 });
    await w.advance(60_000);
    expect(await w.ok((ops) => ops.spools.getSpool({ credential: w.admin, spool: 'billing' }))).toMatchObject({
      queues: [{ name: 'invoices', depth: 2, leased: 0 }],
    });
  },

  'refusals, discard and never-expiring leases': async (w) => {
    await queue(w, null);
    const lease = (q: string) => w.run((ops) => ops.spools.renew({ credential: w.admin, spool: 'billing', lease: q }));
    expect(await lease('short')).toMatchObject({ code: 'invalid_token', param: 'Spooler-Lease' });
    expect(await lease('sl_AAAAAAAAAAAAAAAA_bbbbbbbbbbbbbbbbbbbbbbbb')).toMatchObject({ code: 'stale_token' });
    expect(await w.run((ops) => ops.spools.getSpool({ credential: w.other, spool: 'billing' }))).toMatchObject({ code: 'spool_not_found' });
    expect(await w.run((ops) => ops.spools.send({ credential: w.admin, spool: 'billing', queue: 'nope', body: 1 }))).toMatchObject({
      code: 'queue_not_found',
    });
    expect(await w.run((ops) => ops.spools.send({ credential: w.admin, spool: 'bad name', queue: 'q', body: 1 }))).toMatchObject({
      param: 'spool',
    });
    expect(await w.run((ops) => ops.spools.send({ credential: w.admin, spool: 'billing', queue: 'invoices', body: 1, delaySeconds: 901 }))).toMatchObject({
      param: 'delaySeconds',
    });
    const kept = await send(w, 'kept');
    const leased = (await receive(w)) as ReceivedMessage;
    expect(leased.expiresAt).toBeNull();
    await w.advance(24 * 60 * 60_000);
    expect(await w.ok((ops) => ops.spools.renew({ credential: w.admin, spool: 'billing', lease: leased.lease }))).toMatchObject({
      expiresAt: null,
    });
    const discarded = await w.ok((ops) => ops.spools.discard({ credential: w.admin, spool: 'billing', handle: kept.handle }));
    expect(discarded).toMatchObject({ id: kept.id, claimId: expect.any(String) });
    expect(await lease(leased.lease)).toMatchObject({ code: 'stale_token' });
    expect(await w.run((ops) => ops.spools.discard({ credential: w.admin, spool: 'billing', handle: kept.handle }))).toMatchObject({
      code: 'message_not_found',
    });
    const hb = await w.ok((ops) => ops.heartbeat({ credential: w.admin, ttl: 30 }));
    expect(hb.results).toEqual([{ claimId: leased.message.claimId, status: 'lost' }]);
    for (let i = 1; i < 64; i++) {
      await w.ok((ops) => ops.spools.putQueue({ credential: w.admin, spool: 'billing', queue: `q${i}`, leaseTimeoutSeconds: 5 }));
    }
    expect(await w.run((ops) => ops.spools.putQueue({ credential: w.admin, spool: 'billing', queue: 'q64', leaseTimeoutSeconds: 5 }))).toMatchObject({
      code: 'plan_limit_exceeded',
    });
  },

  'send, receive and ack refuse in the engine order: spool name, spool, queue name, queue; spool, lease shape, lease': async (w) => {
    const sendTo = (spool: string, queueName: string, delaySeconds?: number) =>
      w.run((ops) => ops.spools.send({ credential: w.admin, spool, queue: queueName, body: 1, delaySeconds }));
    const receiveFrom = (spool: string, queueName: string) => w.run((ops) => ops.spools.receive({ credential: w.admin, spool, queue: queueName }));
    const ack = (spool: string, lease: string) => w.run((ops) => ops.spools.ack({ credential: w.admin, spool, lease }));
    expect(await sendTo('bad name', 'q', 5000)).toMatchObject({ param: 'delaySeconds' });
    expect(await sendTo('bad name', 'bad name')).toMatchObject({ code: 'invalid_request', param: 'spool' });
    expect(await sendTo('missing', 'bad name')).toMatchObject({ code: 'spool_not_found' });
    expect(await receiveFrom('missing', 'bad name')).toMatchObject({ code: 'spool_not_found' });
    await queue(w);
    expect(await sendTo('billing', 'bad name')).toMatchObject({ code: 'invalid_request', param: 'queue' });
    expect(await receiveFrom('billing', 'bad name')).toMatchObject({ code: 'invalid_request', param: 'queue' });
    expect(await sendTo('billing', 'missing')).toMatchObject({ code: 'queue_not_found' });
    expect(await receiveFrom('billing', 'missing')).toMatchObject({ code: 'queue_not_found' });
    expect(await receiveFrom('billing', 'invoices')).toEqual({ ok: true, value: null });
    expect(await ack('missing', 'short')).toMatchObject({ code: 'spool_not_found' });
    expect(await ack('billing', 'short')).toMatchObject({ code: 'invalid_token' });
    expect(await ack('billing', 'x'.repeat(40))).toMatchObject({ code: 'stale_token' });
    await send(w, { n: 1 });
    const got = (await receive(w)) as ReceivedMessage;
    expect(await ack('missing', got.lease)).toMatchObject({ code: 'spool_not_found' });
    expect(await ack('billing', got.lease)).toEqual({ ok: true, value: null });
    expect(await ack('billing', got.lease)).toMatchObject({ code: 'stale_token' });
  },
});
