// A queue consumer with graceful shutdown: consume `billing/invoices` two at a time; on SIGTERM
// (or SIGINT) stop receiving, let the handlers in flight finish and ack, then close the client
// and exit 0. A message whose handler had not started stays in the queue for the next consumer.
// Run: LEASEHOLD_URL=http://127.0.0.1:4010 pnpm start   (then Ctrl-C, or kill -TERM <pid>)
import { ConflictError, Leasehold } from '@leasehold/client';

interface Invoice {
  invoiceId: string;
  cents: number;
}

const lh = new Leasehold({
  baseUrl: process.env.LEASEHOLD_URL ?? 'http://127.0.0.1:4010',
  apiKey: process.env.LEASEHOLD_API_KEY ?? 'lh_test_admin',
});
const billing = lh.spool('billing');
// A queue lives in a spool; both must exist first ("No such spool" / "No such queue" otherwise).
// Creating the spool answers 409 spool_exists when it is there; putting the queue is idempotent.
await billing.create().catch((error: unknown) => {
  if (!(error instanceof ConflictError && error.code === 'spool_exists')) throw error;
});
const invoices = billing.queue<Invoice>('invoices');
await invoices.put({ leaseTimeoutSeconds: 30 });

const shutdown = new AbortController();
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    console.log(`${signal}: stopping after the messages in flight`);
    shutdown.abort();
  });
}

let charged = 0;
console.log('consuming billing/invoices');
try {
  await invoices.consume(
    async (message, { signal }) => {
      signal.throwIfAborted(); // the message's lease was lost: do not charge twice
      charged++;
      console.log(`charged ${message.body.invoiceId} (${message.body.cents} cents)`);
    },
    { concurrency: 2, pollIntervalMs: 200, signal: shutdown.signal },
  );
} finally {
  await lh.close();
}
console.log(`stopped: ${charged} charged`);
