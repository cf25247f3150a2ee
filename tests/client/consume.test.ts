/**
 * queue.consume() with handlers that fail: backoff between redeliveries, maxDeliveries with a
 * dead-letter queue (idempotent, crash-safe) or discard, and failures that are never silent.
 * The reference server on its manual clock, the client on fake timers.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { InvalidArgumentError, type Leasehold, type Wire } from '../../packages/client/src/index.js';

type ConsumeFailure = Leasehold.ConsumeFailure;
type Message = Wire.Message;
import { advance, FAKE_TIMERS, startHarness, type Harness } from './harness.js';

describe('consume with a failing handler', () => {
  let h: Harness;
  let lh: Leasehold;

  beforeEach(async () => {
    h = await startHarness('fetch');
    vi.useFakeTimers(FAKE_TIMERS);
    lh = h.client();
    await lh.spool('billing').create();
    await lh.spool('billing').queue('invoices').put({ leaseTimeoutSeconds: 20 });
    await lh.spool('billing').queue('invoices-dead').put({ leaseTimeoutSeconds: 20 });
  });

  afterEach(async () => {
    vi.useRealTimers();
    await h.close();
  });

  const invoices = () => lh.spool('billing').queue('invoices');
  const nackDelays = (): unknown[] => h.requests('/nack').map((r) => (r.body as { delaySeconds?: number }).delaySeconds);

  it('a handler that always throws is redelivered with a growing delay, not in a tight loop', async () => {
    await invoices().send({ n: 1 });
    const deliveries: number[] = [];
    const failures: ConsumeFailure[] = [];
    const stop = new AbortController();
    const done = invoices().consume(
      (message) => {
        deliveries.push(message.deliveryCount);
        throw new Error('poison');
      },
      { signal: stop.signal, pollIntervalMs: 100, onError: (_e, _m, failure) => failures.push(failure) },
    );
    await advance(h, 60_000, 250);
    // 1 + 2 + 4 + 8 + 16 = 31 s of delays: the sixth delivery comes at 31 s, the seventh at 63 s.
    expect(deliveries).toEqual([1, 2, 3, 4, 5, 6]);
    expect(nackDelays()).toEqual([1, 2, 4, 8, 16, 32]);
    expect(failures.map((f) => [f.action, f.deliveryCount, f.retryInSeconds])).toEqual([1, 2, 3, 4, 5, 6].map((n) => ['retry', n, 2 ** (n - 1)]));
    stop.abort();
    await done;
  });

  it('backoff is configurable (an exponential schedule or a function) and capped at the server\'s 900 s', async () => {
    await invoices().send({ n: 1 });
    const stop = new AbortController();
    const done = invoices().consume(
      () => {
        throw new Error('poison');
      },
      { signal: stop.signal, pollIntervalMs: 100, onError: () => {}, backoff: (deliveryCount) => (deliveryCount === 1 ? 3 : 5_000) },
    );
    await advance(h, 5_000, 250);
    expect(nackDelays()).toEqual([3, 900]);
    stop.abort();
    await done;
  });

  it('after maxDeliveries the message goes to the dead-letter queue once, and the original is acked', async () => {
    const sent = await invoices().send({ invoiceId: 'inv_7' });
    const calls: Message[] = [];
    const failures: ConsumeFailure[] = [];
    const stop = new AbortController();
    const done = invoices().consume(
      (message) => {
        calls.push(message);
        throw new Error('poison');
      },
      { signal: stop.signal, pollIntervalMs: 100, maxDeliveries: 3, deadLetter: { queue: 'invoices-dead' }, onError: (_e, _m, f) => failures.push(f) },
    );
    await advance(h, 10_000, 250);
    expect(calls.map((m) => m.deliveryCount)).toEqual([1, 2, 3]);
    expect(failures.at(-1)).toEqual({ action: 'dead-letter', deliveryCount: 3, deadLetter: { spool: 'billing', queue: 'invoices-dead' } });
    stop.abort();
    await done;
    expect(await invoices().put({ leaseTimeoutSeconds: 20 })).toMatchObject({ depth: 0, leased: 0 });
    const dead = await lh.spool('billing').queue('invoices-dead').receive();
    expect(dead?.message.body).toEqual({ invoiceId: 'inv_7' });
    expect(dead?.message.id).not.toBe(sent.id);
    await dead?.ack();
    expect(await lh.spool('billing').queue('invoices-dead').receive()).toBeNull();
  });

  it('a crash between the dead-letter send and the ack duplicates nothing: the redelivery is dead-lettered again without running the handler, and replays the send', async () => {
    await invoices().send({ invoiceId: 'inv_8' });
    let calls = 0;
    const stop = new AbortController();
    // Every ack fails (the worker "dies" before settling): the message comes back when its lease runs out.
    h.server.control.injectFault({ operationId: 'ackMessage', status: 503, times: 1_000 });
    const done = invoices().consume(
      () => {
        calls++;
        throw new Error('poison');
      },
      { signal: stop.signal, pollIntervalMs: 100, maxDeliveries: 2, deadLetter: { queue: 'invoices-dead' }, onError: () => {} },
    );
    // 8 s: long enough for the client to give up on each ack (the fault's 503s carry the default
    // Retry-After of 1 s, which the client honours), short of the 20 s lease.
    await advance(h, 8_000, 250);
    expect(calls).toBe(2);
    h.server.control.clearFaults();
    await advance(h, 40_000, 1_000); // the unacked lease expires; delivery 3 > maxDeliveries
    expect(calls).toBe(2);
    stop.abort();
    await done;
    const sends = h.requests('/invoices-dead/messages', 'POST');
    expect(sends.length).toBeGreaterThanOrEqual(2);
    expect(new Set(sends.map((r) => r.headers['idempotency-key'])).size).toBe(1);
    expect(await invoices().put({ leaseTimeoutSeconds: 20 })).toMatchObject({ depth: 0 });
    expect(await lh.spool('billing').queue('invoices-dead').put({ leaseTimeoutSeconds: 20 })).toMatchObject({ depth: 1 });
  });

  it('a failed ack says what happens next — no renewal, a retry only after heartbeat answers, else a redelivery — and that is what happens', async () => {
    await invoices().send({ invoiceId: 'inv_ack' });
    const warnings: string[] = [];
    const logged = h.client({ logger: { warn: (message: string) => void warnings.push(message) } });
    const stop = new AbortController();
    h.server.control.injectFault({ operationId: 'ackMessage', status: 503, times: 3 }); // the ack's first try and its 2 retries
    let calls = 0;
    const done = logged.spool('billing').queue('invoices').consume(() => void calls++, { signal: stop.signal, pollIntervalMs: 100 });
    await advance(h, 8_000, 250);
    const warning = warnings.find((w) => w.startsWith('Settling a message (ack) failed'));
    expect(warning).toMatch(/its lease is no longer renewed\. The ack is retried after this client's next heartbeat answers \(only while it renews other leases, .*unless a retry gets through first, the message is delivered again once the lease expires/);
    expect(warning).not.toMatch(/returns to the queue when its lease ends/);
    // This consumer renews no other lease: no heartbeat answer comes, the unrenewed 20 s lease
    // expires and the message is delivered again (and acked this time) — as the warning said.
    await advance(h, 30_000, 1_000);
    expect(calls).toBe(2);
    stop.abort();
    await done;
    expect(await invoices().put({ leaseTimeoutSeconds: 20 })).toMatchObject({ depth: 0 });
  });

  it("deadLetter: 'discard' deletes the message after maxDeliveries", async () => {
    await invoices().send({ n: 1 });
    const failures: ConsumeFailure[] = [];
    const stop = new AbortController();
    const done = invoices().consume(
      () => {
        throw new Error('poison');
      },
      { signal: stop.signal, pollIntervalMs: 100, maxDeliveries: 2, deadLetter: 'discard', onError: (_e, _m, f) => failures.push(f) },
    );
    await advance(h, 5_000, 250);
    expect(failures.map((f) => f.action)).toEqual(['retry', 'discard']);
    stop.abort();
    await done;
    expect(await invoices().put({ leaseTimeoutSeconds: 20 })).toMatchObject({ depth: 0, leased: 0 });
  });

  it('without onError, a failure is a warning on stderr (or on the client\'s logger when it has one)', async () => {
    await invoices().send({ n: 1 });
    const stderr = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const stop = new AbortController();
      const done = invoices().consume(
        () => {
          throw new Error('poison pill');
        },
        { signal: stop.signal, pollIntervalMs: 100 },
      );
      await advance(h, 500, 250);
      stop.abort();
      await done;
      expect(stderr).toHaveBeenCalledTimes(1);
      expect(String(stderr.mock.calls[0]?.[0])).toMatch(/consume billing\/invoices: the handler failed on message msg_\w+ \(delivery 1\); nacked, delivered again in 1 s: Error: poison pill/);

      const warn = vi.fn();
      const logged = h.client({ logger: { warn } });
      await advance(h, 2_000, 1_000);
      const stopLogged = new AbortController();
      const doneLogged = logged.spool('billing').queue('invoices').consume(
        () => {
          throw new Error('again');
        },
        { signal: stopLogged.signal, pollIntervalMs: 100 },
      );
      await advance(h, 500, 250);
      stopLogged.abort();
      await doneLogged;
      expect(warn).toHaveBeenCalledWith(expect.stringContaining('the handler failed on message'), expect.objectContaining({ action: 'retry', deliveryCount: 2 }));
      expect(stderr).toHaveBeenCalledTimes(1);
    } finally {
      stderr.mockRestore();
    }
  });

  it.each<[string, object]>([
    ['maxDeliveries without deadLetter', { maxDeliveries: 3 }],
    ['deadLetter without maxDeliveries', { deadLetter: 'discard' }],
    ['a deadLetter that names no queue', { maxDeliveries: 3, deadLetter: { spool: 'billing' } }],
    ['concurrency 0', { concurrency: 0 }],
    ['concurrency NaN', { concurrency: Number.NaN }],
    ['a negative poll interval', { pollIntervalMs: -1 }],
    ['backoff and nackDelaySeconds together', { backoff: { initialDelaySeconds: 1 }, nackDelaySeconds: 1 }],
    ['a backoff multiplier below 1', { backoff: { multiplier: 0.5 } }],
    ['onError not a function', { onError: 'log' }],
  ])('refuses %s with an InvalidArgumentError before receiving anything', async (_, options) => {
    const before = h.requests('/receive').length;
    await expect(invoices().consume(() => {}, options)).rejects.toBeInstanceOf(InvalidArgumentError);
    expect(h.requests('/receive').length).toBe(before);
  });
});
