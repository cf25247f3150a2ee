import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GoneError, SpoolLease, type Leasehold, type Wire } from '../../packages/client/src/index.js';

type Message = Wire.Message;
import { advance, FAKE_TIMERS, MODES, startHarness, until, type Harness } from './harness.js';

describe.each(MODES)('spools (%s)', (mode) => {
  let h: Harness;
  let lh: Leasehold;

  beforeEach(async () => {
    h = await startHarness(mode);
    vi.useFakeTimers(FAKE_TIMERS);
    lh = h.client();
    await lh.spool('billing').create();
    await lh.spool('billing').queue('invoices').put({ leaseTimeoutSeconds: 60 });
  });

  afterEach(async () => {
    vi.useRealTimers();
    await h.close();
  });

  const invoices = () => lh.spool('billing').queue('invoices');

  it('receive leases a message (session header, lease registered) and ack deletes it; 204 gives null', async () => {
    const sent = await invoices().send({ invoiceId: 'inv_1' });
    const lease = await invoices().receive();
    expect(lease).toBeInstanceOf(SpoolLease);
    expect(lease?.message).toMatchObject({ id: sent.id, body: { invoiceId: 'inv_1' }, deliveryCount: 1 });
    expect(lease?.fence).toBeGreaterThan(0);
    expect(h.requests('/receive')[0]?.headers['leasehold-session']).toBe(lh.session);
    expect(lh.stats().leases).toBe(1);
    await lease?.ack();
    expect(lh.stats().leases).toBe(0);
    expect(await invoices().receive()).toBeNull();
    expect(await invoices().put({ leaseTimeoutSeconds: 60 })).toMatchObject({ depth: 0, leased: 0 });
  });

  it('consume acks handled messages, nacks failures (redelivered after the backoff), polls an empty queue, and stops on abort', async () => {
    for (const n of [1, 2, 3]) await invoices().send({ n });
    const handled: Array<{ n: number; delivery: number }> = [];
    const errors: unknown[] = [];
    let failedOnce = false;
    const stop = new AbortController();
    const done = invoices().consume(
      async (message: Message) => {
        const { n } = message.body as { n: number };
        if (n === 2 && !failedOnce) {
          failedOnce = true;
          throw new Error('transient');
        }
        handled.push({ n, delivery: message.deliveryCount });
      },
      { concurrency: 2, signal: stop.signal, pollIntervalMs: 1000, onError: (error) => errors.push(error) },
    );
    await until(() => handled.length === 2, 'two messages handled');
    await h.settle();
    expect(h.requests('/nack')[0]?.body).toEqual({ delaySeconds: 1 }); // the default backoff's first step
    await advance(h, 2_000, 1_000);
    await until(() => handled.length === 3, 'three messages handled');
    await h.settle();
    expect(handled.map((m) => m.n).sort()).toEqual([1, 2, 3]);
    expect(handled.find((m) => m.n === 2)?.delivery).toBe(2);
    expect(errors).toHaveLength(1);
    expect(h.requests('/ack')).toHaveLength(3);
    expect(h.requests('/nack')).toHaveLength(1);

    // Idle: one receive per slot per poll interval.
    const polls = h.requests('/receive').length;
    await vi.advanceTimersByTimeAsync(1000);
    await h.settle();
    expect(h.requests('/receive').length).toBe(polls + 2);

    stop.abort();
    await done;
    expect(await invoices().put({ leaseTimeoutSeconds: 60 })).toMatchObject({ depth: 0, leased: 0 });
  });

  it('a message discarded mid-work: the heartbeat reports it lost, the handler’s signal aborts, nothing is settled', async () => {
    const sent = await invoices().send({ n: 1 });
    const stop = new AbortController();
    let reason: unknown;
    const done = invoices().consume(
      async (_message, { signal }) => {
        await new Promise((resolve) => signal.addEventListener('abort', resolve));
        reason = signal.reason;
      },
      { signal: stop.signal },
    );
    await h.settle();
    await lh.spool('billing').discard(sent.handle);
    await advance(h, 20_000, 5_000); // spool leases (60 s) are heartbeated every 20 s
    expect(reason).toMatchObject({ name: 'LeaseLostError', reason: 'lost' });
    expect(h.requests('/ack')).toHaveLength(0);
    expect(h.requests('/nack')).toHaveLength(0);
    stop.abort();
    await vi.advanceTimersByTimeAsync(1000);
    await done;
  });

  it('an ack after the message was discarded is answered 410 stale_token (consume logs it and goes on)', async () => {
    const sent = await invoices().send({ n: 1 });
    const lease = await invoices().receive();
    await lh.spool('billing').discard(sent.handle);
    await expect(lease?.ack()).rejects.toBeInstanceOf(GoneError);
    await expect(lease?.ack()).rejects.toMatchObject({ status: 410, code: 'stale_token' });

    const warnings: string[] = [];
    const logged = h.client({ logger: { warn: (message: string) => void warnings.push(message) } });
    const next = await invoices().send({ n: 2 });
    const stop = new AbortController();
    const done = logged.spool('billing').queue('invoices').consume(
      async () => {
        await logged.spool('billing').discard(next.handle);
      },
      { signal: stop.signal },
    );
    await until(() => h.requests('/ack').length === 2, 'the consumer’s ack');
    await h.settle();
    expect(warnings.some((w) => w.includes('Settling a message (ack) failed'))).toBe(true);
    stop.abort();
    await done;
  });

  it('an explicit renew of a discarded message’s lease aborts it as stale', async () => {
    const sent = await invoices().send({ n: 1 });
    const lease = await invoices().receive();
    await lh.spool('billing').discard(sent.handle);
    await expect(lease?.renew()).rejects.toMatchObject({ name: 'LeaseLostError', reason: 'stale' });
    expect(lease?.signal.reason).toMatchObject({ reason: 'stale' });
  });

  it('consume rejects on a receive error retrying cannot fix (a missing queue)', async () => {
    await expect(lh.spool('billing').queue('nope').consume(() => undefined, { concurrency: 2 })).rejects.toMatchObject({
      name: 'NotFoundError',
      code: 'queue_not_found',
    });
  });

  it('a queue without a lease timeout: the lease never expires locally; renew keeps it so; nack with a delay', async () => {
    await lh.spool('billing').queue('forever').put({ leaseTimeoutSeconds: null });
    await lh.spool('billing').queue('forever').send({ n: 1 });
    const lease = await lh.spool('billing').queue('forever').receive();
    expect(lease?.remainingMs).toBe(Infinity);
    expect(lease?.expiresAt).toBeNull();
    expect(await lease?.renew()).toEqual({ durationMs: null });
    await lease?.nack({ delaySeconds: 30 });
    expect(h.requests('/nack')[0]?.body).toEqual({ delaySeconds: 30 });
    expect(await lh.spool('billing').queue('forever').receive()).toBeNull();
    await advance(h, 30_000, 30_000);
    expect((await lh.spool('billing').queue('forever').receive())?.message.deliveryCount).toBe(2);
  });

  it('an ack whose answer was lost is retried with the same key and replayed, not answered 410', async () => {
    await invoices().send({ n: 1 });
    const lease = await invoices().receive();
    h.server.control.injectFault({ operationId: 'ackMessage', dropResponse: true, times: 1 });
    const acking = lease?.ack();
    await h.settle();
    await vi.advanceTimersByTimeAsync(500);
    await expect(acking).resolves.toBeUndefined();
    const keys = h.requests('/ack').map((r) => r.headers['idempotency-key']);
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
  });
});
