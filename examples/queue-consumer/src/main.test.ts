// CI runs the example as its README says, against a reference server: it charges what is queued,
// and on SIGTERM stops receiving, finishes, closes the client and exits 0 — no lease left held,
// and a message sent afterwards is still in the queue for the next consumer.
import { expect, it } from 'vitest';
import { exampleWorld, runExample } from '../../../tests/support/example-process.js';

const reference = exampleWorld();

it('consumes, then shuts down gracefully on SIGTERM: consume aborted, close(), exit 0', async () => {
  await reference.lh.spool('billing').create();
  const invoices = reference.lh.spool('billing').queue<{ invoiceId: string; cents: number }>('invoices');
  await invoices.put({ leaseTimeoutSeconds: 30 });
  for (const n of [1, 2, 3]) await invoices.send({ invoiceId: `inv_${n}`, cents: 100 * n });
  const consumer = runExample('queue-consumer', { LEASEHOLD_URL: reference.url });
  await consumer.waitFor(/charged inv_1[\s\S]*charged inv_2[\s\S]*charged inv_3/, 60_000);
  consumer.child.kill('SIGTERM');
  expect(await consumer.exited(30_000)).toEqual({ code: 0, signal: null });
  expect(consumer.output()).toMatch(/SIGTERM: stopping after the messages in flight\n[\s\S]*stopped: 3 charged\n$/);
  expect(reference.server.control.stats().held).toBe(0);

  // Nothing consumes any more: a new message waits in the queue.
  await invoices.send({ invoiceId: 'inv_4', cents: 400 });
  const waiting = await invoices.receive();
  expect(waiting?.message.body).toEqual({ invoiceId: 'inv_4', cents: 400 });
  await waiting?.ack();
}, 120_000);
