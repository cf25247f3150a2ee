// CI runs the example as its README says, against a reference server holding three Todo tasks:
// it exits 0 with every task Done and its note written.
import { expect, it } from 'vitest';
import { exampleWorld, runExample } from '../../../tests/support/example-process.js';

const reference = exampleWorld();

it('works every Todo task to Done and exits 0', async () => {
  const ids: number[] = [];
  for (const title of ['rebuild the index', 'compact the log', 'rotate the keys']) ids.push((await reference.lh.tasks.create({ title })).task.id);
  const worker = runExample('task-worker', { LEASEHOLD_URL: reference.url });
  expect(await worker.exited(60_000)).toEqual({ code: 0, signal: null });
  expect(worker.output()).toContain('done: 3 tasks');
  for (const id of ids) {
    const { task } = await reference.lh.tasks.get(id);
    expect(task.status).toBe('Done');
  }
  expect(reference.server.control.stats().held).toBe(0);
}, 90_000);
