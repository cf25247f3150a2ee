// queue<T>() and a Standard Schema at the consumer (issue 15 item 7): bodies typed from the
// schema (zod, valibot), an invalid body a MessageSchemaError that takes the consume failure path.
import * as v from 'valibot';
import { afterEach, beforeEach, describe, expect, expectTypeOf, it, vi } from 'vitest';
import { z } from 'zod';
import { MessageSchemaError, type Leasehold, type Wire } from '../../packages/client/src/index.js';
import { advance, FAKE_TIMERS, startHarness, type Harness } from './harness.js';

let h: Harness;
let lh: Leasehold;
beforeEach(async () => {
  vi.useFakeTimers(FAKE_TIMERS);
  h = await startHarness('fetch');
  lh = h.client();
  await lh.spool('billing').create();
});
afterEach(async () => {
  await h.close();
  vi.useRealTimers();
});

describe('typed queues', () => {
  it('a zod schema types the bodies and validates each one before the handler; an invalid body is a MessageSchemaError on the failure path', async () => {
    const invoices = lh.spool('billing').queue('invoices', { schema: z.object({ invoiceId: z.string(), cents: z.number().int() }) });
    expectTypeOf(invoices).toEqualTypeOf<Leasehold.SpoolQueue<{ invoiceId: string; cents: number }>>();
    await invoices.put({ leaseTimeoutSeconds: 30 });
    await invoices.send({ invoiceId: 'inv_1', cents: 1200 });
    await lh.spool('billing').queue('invoices').send({ invoiceId: 42 }); // a producer without the type
    const handled: Array<{ invoiceId: string; cents: number }> = [];
    const failures: Array<{ error: unknown; message: Wire.Message; action: string }> = [];
    const stop = new AbortController();
    const done = invoices.consume(
      async (message) => {
        expectTypeOf(message.body).toEqualTypeOf<{ invoiceId: string; cents: number }>();
        handled.push(message.body);
      },
      { signal: stop.signal, pollIntervalMs: 100, maxDeliveries: 1, deadLetter: 'discard', onError: (error, message, failure) => void failures.push({ error, message, action: failure.action }) },
    );
    await advance(h, 1_000, 100);
    stop.abort();
    await done;
    expect(handled).toEqual([{ invoiceId: 'inv_1', cents: 1200 }]);
    expect(failures).toHaveLength(1);
    const [failure] = failures;
    expect(failure?.action).toBe('discard');
    expect(failure?.error).toBeInstanceOf(MessageSchemaError);
    expect(failure?.error).toMatchObject({ messageId: failure?.message.id, issues: [expect.objectContaining({ path: 'invoiceId' }), expect.objectContaining({ path: 'cents' })] });
    expect(String((failure?.error as Error).message)).toMatch(/^Message msg_\w+ does not match its queue's schema: invoiceId: .+ \(and 1 more\)\.$/);
  });

  it('a valibot schema works the same way; a type argument alone types without validating', async () => {
    const jobs = lh.spool('billing').queue('jobs', { schema: v.object({ job: v.number() }) });
    expectTypeOf(jobs).toEqualTypeOf<Leasehold.SpoolQueue<{ job: number }>>();
    const typed = lh.spool('billing').queue<{ job: number }>('jobs');
    expectTypeOf(typed.send).parameter(0).toEqualTypeOf<{ job: number }>();
    expectTypeOf(lh.spool('billing').queue('any')).toEqualTypeOf<Leasehold.SpoolQueue>();
    await jobs.put({ leaseTimeoutSeconds: 30 });
    await typed.send({ job: 7 });
    const seen: number[] = [];
    const stop = new AbortController();
    const done = jobs.consume((message) => void seen.push(message.body.job), { signal: stop.signal, pollIntervalMs: 100 });
    await advance(h, 500, 100);
    stop.abort();
    await done;
    expect(seen).toEqual([7]);
  });

  it('fences are numbers inside claim.run and tasks.work handlers', async () => {
    const claim = lh.space(crypto.randomUUID()).run(crypto.randomUUID(), { holder: 'typed' }).claim('k');
    const fence = await claim.run((lease) => {
      expectTypeOf(lease.fence).toEqualTypeOf<number>();
      return lease.fence;
    });
    expect(typeof fence).toBe('number');
    const { task } = await lh.tasks.create({ title: 'fenced' });
    const taskFence = await lh.tasks.work(task.id, (ctx) => {
      expectTypeOf(ctx.lease.fence).toEqualTypeOf<number>();
      return ctx.lease.fence;
    });
    expect(Number.isInteger(taskFence)).toBe(true);
  });
});
