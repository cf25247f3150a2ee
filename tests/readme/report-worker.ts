import { Leasehold } from '@leasehold/client';

const SPACE = '6f1c2b9e-8d4a-4c1e-9b7a-3e2f1d0c9b8a';
const store = new Map<string, { fence: number; total: number }>(); // stands in for your database

/** The guarded resource checks the fence: a write from a holder whose lease was lost is refused. */
function fencedWrite(key: string, fence: number, total: number): void {
  if ((store.get(key)?.fence ?? 0) > fence) throw new Error(`stale write to ${key} (fence ${fence})`);
  store.set(key, { fence, total });
}

export async function rebuildReports(baseUrl: string, months: string[]) {
  const lh = new Leasehold({ baseUrl, apiKey: 'lh_test_admin' });
  const run = lh.space(SPACE).run(crypto.randomUUID(), { holder: 'report-worker' });
  for (const month of months) {
    // Waits its turn for the key, renews it in the background, releases it afterwards.
    await run.claim(`reports/${month}`).run(async (lease) => {
      lease.signal.throwIfAborted(); // long work passes lease.signal on, and stops when it aborts
      fencedWrite(`reports/${month}`, lease.fence, month.length * 100);
    });
  }
  await lh.close();
  return store;
}
