// CI runs the example as its README says, against a reference server holding three Todo tasks:
// it exits 0 with every task Done and its note written.
import { Leasehold } from '@leasehold/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runExample, startReferenceServer } from '../../../tests/support/example-process.js';

let reference: Awaited<ReturnType<typeof startReferenceServer>>;
let lh: Leasehold;
beforeAll(async () => {
  reference = await startReferenceServer();
  lh = new Leasehold({ baseUrl: reference.listener.url, apiKey: 'lh_test_admin' });
});
afterAll(async () => {
  await lh.close();
  await reference.listener.close();
});

it('works every Todo task to Done and exits 0', async () => {
  const ids: number[] = [];
  for (const title of ['rebuild the index', 'compact the log', 'rotate the keys']) ids.push((await lh.tasks.create({ title })).task.id);
  const worker = runExample('task-worker', { LEASEHOLD_URL: reference.listener.url });
  expect(await worker.exited(60_000)).toEqual({ code: 0, signal: null });
  expect(worker.output()).toContain('done: 3 tasks');
  for (const id of ids) {
    const { task } = await lh.tasks.get(id);
    expect(task.status).toBe('Done');
  }
  expect(reference.server.control.stats().held).toBe(0);
}, 90_000);
