// CI runs the example as its README says, against a reference server: it exits 0, builds each
// month under a lease with a fence, and leaves no key held.
import { expect, it } from 'vitest';
import { exampleWorld, runExample } from '../../../tests/support/example-process.js';

const reference = exampleWorld();

it('builds every month under its claim and exits 0 with nothing held', async () => {
  const worker = runExample('claims-worker', { LEASEHOLD_URL: reference.url, MONTHS: '2026-10,2026-11,2026-12' });
  expect(await worker.exited(60_000)).toEqual({ code: 0, signal: null });
  expect(worker.output()).toMatch(/built reports\/2026-10 with fence [1-9]\d*\nbuilt reports\/2026-11 with fence [1-9]\d*\nbuilt reports\/2026-12 with fence [1-9]\d*\ndone: 3 reports\n$/);
  expect(reference.server.control.stats().held).toBe(0);
}, 90_000);
