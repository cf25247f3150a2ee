/**
 * Every test server starts as new: on the SQL store projects a database or embedded instance is
 * lent again after the previous server's writes were emptied out of it
 * (tests/support/pglite-template.ts, RESET_MIGRATED_DATABASE), so the next server's first fence,
 * task id and queue look exactly like a fresh store's. The suites' independence rests on it.
 */
import { afterEach, expect, it } from 'vitest';
import { startServer, stopServers } from '../support/leasehold-harness.js';

afterEach(stopServers);

it('a server started after another wrote sees a store as new: fence 1, task 1, an empty queue', async () => {
  const firsts: unknown[] = [];
  for (let i = 0; i < 3; i++) {
    const h = await startServer();
    const claim = await h.acquire('k');
    const task = await h.createTask();
    await h.createQueue('billing', 'invoices', 30);
    const empty = (await h.call('receiveMessage', { path: { spool: 'billing', queue: 'invoices' } })).status === 204;
    await h.sendMessage('billing', 'invoices');
    firsts.push({ fence: claim.body.fence, task: task.id, empty });
    await stopServers();
  }
  expect(firsts).toEqual([
    { fence: 1, task: 1, empty: true },
    { fence: 1, task: 1, empty: true },
    { fence: 1, task: 1, empty: true },
  ]);
});
