import { describe, expect, it } from 'vitest';
import type { ReceivedMessage } from './spool-records.js';
import { T0, codeOf, errorOf, setup } from './test-fixtures.js';

type Fixture = ReturnType<typeof setup>;

function spool(f: Fixture, leaseTimeoutSeconds: number | null = 60) {
  f.engine.spools.createSpool({ credential: f.admin, name: 'invoices' });
  f.engine.spools.putQueue({ credential: f.admin, spool: 'invoices', queue: 'q', leaseTimeoutSeconds });
  const send = (body: unknown, delaySeconds?: number) =>
    f.engine.spools.send({ credential: f.admin, spool: 'invoices', queue: 'q', body, delaySeconds });
  const receive = () => f.engine.spools.receive({ credential: f.admin, spool: 'invoices', queue: 'q', holderSession: 's' });
  const lease = (r: ReceivedMessage | null) => ({ credential: f.admin, spool: 'invoices', lease: (r as ReceivedMessage).lease });
  return { send, receive, lease };
}

describe('Spools: spools and queues', () => {
  it('creates spools per account and queues with timeouts', () => {
    const f = setup();
    expect(f.engine.spools.createSpool({ credential: f.admin, name: 'invoices' })).toEqual({
      object: 'spool',
      name: 'invoices',
      queues: [],
      createdAt: '2026-11-29T15:00:00Z',
    });
    expect(codeOf(() => f.engine.spools.createSpool({ credential: f.admin, name: 'invoices' }))).toBe('spool_exists');
    expect(codeOf(() => f.engine.spools.createSpool({ credential: f.other, name: 'invoices' }))).toBe('no error');
    expect(codeOf(() => f.engine.spools.createSpool({ credential: f.admin, name: 'bad name' }))).toBe('invalid_request');
    const put = (queue: string, leaseTimeoutSeconds: number | null) =>
      f.engine.spools.putQueue({ credential: f.admin, spool: 'invoices', queue, leaseTimeoutSeconds });
    expect(put('b', 60)).toEqual({ created: true, queue: { object: 'queue', spool: 'invoices', name: 'b', leaseTimeoutSeconds: 60, depth: 0, leased: 0 } });
    expect(put('b', null)).toMatchObject({ created: false, queue: { leaseTimeoutSeconds: null } });
    put('a', 1);
    expect(f.engine.spools.getSpool({ credential: f.reader, spool: 'invoices' }).queues.map((q) => q.name)).toEqual(['a', 'b']);
    expect(codeOf(() => put('c', 0))).toBe('invalid_request');
    expect(codeOf(() => put('c', 43201))).toBe('invalid_request');
    expect(codeOf(() => f.engine.spools.putQueue({ credential: f.admin, spool: 'nope', queue: 'q', leaseTimeoutSeconds: 1 }))).toBe('spool_not_found');
    expect(codeOf(() => f.engine.spools.getSpool({ credential: f.other, spool: 'nope' }))).toBe('spool_not_found');
  });

  it('holds at most 64 queues per spool', () => {
    const f = setup();
    f.engine.spools.createSpool({ credential: f.admin, name: 's' });
    for (let i = 0; i < 64; i++) f.engine.spools.putQueue({ credential: f.admin, spool: 's', queue: `q${i}`, leaseTimeoutSeconds: 30 });
    expect(codeOf(() => f.engine.spools.putQueue({ credential: f.admin, spool: 's', queue: 'q64', leaseTimeoutSeconds: 30 }))).toBe(
      'plan_limit_exceeded',
    );
    expect(codeOf(() => f.engine.spools.putQueue({ credential: f.admin, spool: 's', queue: 'q0', leaseTimeoutSeconds: 5 }))).toBe('no error');
  });
});

describe('Spools: send and receive', () => {
  it('delivers the oldest visible message under a lease', () => {
    const f = setup();
    const s = spool(f);
    const sent = s.send({ invoiceId: 'inv_1' });
    s.send({ invoiceId: 'inv_2' });
    expect(sent).toMatchObject({ object: 'message', spool: 'invoices', queue: 'q', body: { invoiceId: 'inv_1' }, deliveryCount: 0, sentAt: '2026-11-29T15:00:00Z' });
    expect(sent.id).toMatch(/^msg_[A-Za-z0-9]+$/);
    expect(sent.handle).toMatch(/^hdl_[A-Za-z0-9]{8,64}$/);
    const got = s.receive();
    expect(got?.message).toMatchObject({ id: sent.id, deliveryCount: 1, fence: 1 });
    expect(got?.message.claimId).toMatch(/^clm_/);
    expect(got?.lease).toMatch(/^[A-Za-z0-9_-]{16,256}$/);
    expect(got?.expiresAt).toBe(T0 + 60_000);
    expect(got?.leaseSeconds).toBe(60);
    expect(s.receive()?.message.body).toEqual({ invoiceId: 'inv_2' });
    expect(s.receive()).toBeNull();
    expect(f.engine.spools.getQueue({ credential: f.admin, spool: 'invoices', queue: 'q' })).toMatchObject({ depth: 0, leased: 2 });
    expect(codeOf(() => f.engine.spools.receive({ credential: f.admin, spool: 'invoices', queue: 'nope' }))).toBe('queue_not_found');
  });

  it('keeps delayed messages invisible until their time', () => {
    const f = setup();
    const s = spool(f);
    s.send('later', 10);
    expect(s.receive()).toBeNull();
    f.clock.advance(10_000);
    expect(s.receive()?.message.body).toBe('later');
  });
});

describe('Spools: renew resets', () => {
  it('resets to the queue’s current timeout, earlier, never-expiring, or back to a deadline', () => {
    const f = setup();
    const s = spool(f, 60);
    s.send(1);
    const got = s.receive();
    const put = (t: number | null) => f.engine.spools.putQueue({ credential: f.admin, spool: 'invoices', queue: 'q', leaseTimeoutSeconds: t });
    f.clock.advance(10_000);
    put(20);
    expect(f.engine.spools.renew(s.lease(got))).toMatchObject({ expiresAt: T0 + 30_000, leaseSeconds: 20 });
    put(null);
    expect(f.engine.spools.renew(s.lease(got))).toMatchObject({ expiresAt: null, leaseSeconds: null });
    f.clock.advance(24 * 3600_000);
    put(30);
    expect(f.engine.spools.renew(s.lease(got))).toMatchObject({ expiresAt: f.clock.now() + 30_000, leaseSeconds: 30 });
  });

  it('makes an expired lease stale and returns its message', () => {
    const f = setup();
    const s = spool(f, 60);
    s.send(1);
    const first = s.receive();
    f.clock.advance(60_000);
    for (const op of ['renew', 'ack', 'nack'] as const) {
      const error = errorOf(() => f.engine.spools[op](s.lease(first)));
      expect([error.code, error.status]).toEqual(['stale_token', 410]);
    }
    const second = s.receive();
    expect(second?.message).toMatchObject({ id: first?.message.id, deliveryCount: 2, fence: 2 });
    expect(f.engine.heartbeat({ credential: f.admin, ttl: 30 }).results).toEqual([
      { claimId: first?.message.claimId, status: 'lost' },
      { claimId: second?.message.claimId, status: 'held', expiresAt: f.clock.now() + 60_000 },
    ]);
  });

  it('validates the lease and its spool', () => {
    const f = setup();
    const s = spool(f);
    s.send(1);
    const got = s.receive();
    f.engine.spools.createSpool({ credential: f.admin, name: 'other' });
    expect(codeOf(() => f.engine.spools.renew({ credential: f.admin, spool: 'invoices', lease: 'short' }))).toBe('invalid_token');
    expect(codeOf(() => f.engine.spools.renew({ credential: f.admin, spool: 'other', lease: got?.lease as string }))).toBe('stale_token');
    expect(codeOf(() => f.engine.spools.renew({ credential: f.other, spool: 'invoices', lease: got?.lease as string }))).toBe('spool_not_found');
    expect(codeOf(() => f.engine.spools.renew({ credential: f.admin, spool: 'invoices', lease: 'sl_AAAAAAAAAAAAAAAA_x' }))).toBe('stale_token');
  });
});

describe('Spools: settle, discard, primary change', () => {
  it('ack deletes; a second settle is stale', () => {
    const f = setup();
    const s = spool(f);
    s.send(1);
    const got = s.receive();
    f.engine.spools.ack(s.lease(got));
    expect(codeOf(() => f.engine.spools.ack(s.lease(got)))).toBe('stale_token');
    expect(s.receive()).toBeNull();
    expect(f.engine.stats().messages).toBe(0);
    expect(f.engine.heartbeat({ credential: f.admin, ttl: 30 }).results).toEqual([]);
  });

  it('nack returns the message, after an optional delay', () => {
    const f = setup();
    const s = spool(f);
    s.send(1);
    const got = s.receive();
    f.engine.spools.nack({ ...s.lease(got), delaySeconds: 5 });
    expect(codeOf(() => f.engine.spools.renew(s.lease(got)))).toBe('stale_token');
    expect(s.receive()).toBeNull();
    f.clock.advance(5_000);
    expect(s.receive()?.message.deliveryCount).toBe(2);
  });

  it('discard deletes a message whatever its state; its lease turns stale and is reported lost', () => {
    const f = setup();
    const s = spool(f);
    const waiting = s.send('waiting');
    const leasedMessage = s.send('leased');
    const delayed = s.send('delayed', 100);
    s.receive(); // takes "waiting"
    const discard = (handle: string) => f.engine.spools.discard({ credential: f.admin, spool: 'invoices', handle });
    expect(discard(delayed.handle).body).toBe('delayed');
    const got = s.receive();
    expect(got?.message.id).toBe(leasedMessage.id);
    discard(leasedMessage.handle);
    expect(codeOf(() => f.engine.spools.renew(s.lease(got)))).toBe('stale_token');
    expect(codeOf(() => discard(leasedMessage.handle))).toBe('message_not_found');
    expect(f.engine.heartbeat({ credential: f.admin, ttl: 30 }).results.map((r) => r.status)).toEqual(['held', 'lost']);
    expect(discard(waiting.handle).id).toBe(waiting.id);
    expect(f.engine.stats().messages).toBe(0);
  });

  it('a primary change makes every outstanding lease stale and requeues its message', () => {
    const f = setup();
    const s = spool(f, null);
    s.send(1);
    s.send(2);
    const a = s.receive();
    const b = s.receive();
    expect(f.engine.spools.primaryChange()).toBe(2);
    expect(codeOf(() => f.engine.spools.ack(s.lease(a)))).toBe('stale_token');
    expect(codeOf(() => f.engine.spools.nack(s.lease(b)))).toBe('stale_token');
    expect(s.receive()?.message).toMatchObject({ body: 1, deliveryCount: 2 });
    expect(f.engine.heartbeat({ credential: f.admin, ttl: 30 }).results.filter((r) => r.status === 'lost')).toHaveLength(2);
  });
});
