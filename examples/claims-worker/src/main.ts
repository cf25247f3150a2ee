// A claims worker: for each month, take the key `reports/<month>` in a space (waiting its turn if
// another worker holds it), build the report while the client keeps the lease renewed, save it
// with the lease's fence, release. Run: LEASEHOLD_URL=http://127.0.0.1:4010 pnpm start
import { Leasehold } from '@leasehold/client';

const SPACE = '6f1c2b9e-8d4a-4c1e-9b7a-3e2f1d0c9b8a';
const months = (process.env.MONTHS ?? '2026-10,2026-11').split(',');

const lh = new Leasehold({
  baseUrl: process.env.LEASEHOLD_URL ?? 'http://127.0.0.1:4010',
  apiKey: process.env.LEASEHOLD_API_KEY ?? 'lh_test_admin',
});

/** Where reports go; it refuses a write whose fence is older than the last one it took. */
const saved = new Map<string, { fence: number; body: string }>();
function save(key: string, body: string, fence: number): void {
  const last = saved.get(key);
  if (last !== undefined && last.fence > fence) throw new Error(`stale write to ${key}: fence ${fence} < ${last.fence}`);
  saved.set(key, { fence, body });
}

try {
  const run = lh.space(SPACE).run(crypto.randomUUID(), { holder: `claims-worker-${process.pid}` });
  for (const month of months) {
    const key = `reports/${month}`;
    await run.claim(key).run(async (lease) => {
      // Real work watches lease.signal: it aborts if the lease is ever lost.
      const body = `report for ${month}`;
      lease.signal.throwIfAborted();
      save(key, body, lease.fence);
      console.log(`built ${key} with fence ${lease.fence}`);
    });
  }
} finally {
  await lh.close(); // releases whatever it still holds, closes its connections
}
console.log(`done: ${saved.size} reports`);
