import { LeaseLostError, type Leasehold } from '@leasehold/client';
import type { ReportStore } from './report-store.js';

/** What a report worker needs besides the client. */
export interface ReportWorkerOptions {
  /** The space that holds the report keys. */
  spaceId: string;
  /** This run's id (a UUID). */
  runId: string;
  /** This worker's name, shown to others in claim rows. */
  holder: string;
  store: ReportStore;
  /** Builds one month's report; must stop when `signal` aborts (the lease was lost). */
  render: (month: string, signal: AbortSignal) => Promise<string>;
}

/** What one pass did with each month. */
export interface ReportPass {
  /** Built and saved under the lease. */
  built: string[];
  /** Someone else holds the month's key: their job. */
  skipped: string[];
  /** The lease was lost while rendering: nothing was saved, another worker will redo it. */
  lost: string[];
}

/**
 * One pass over `months`: for each, take the key `reports/<month>` if it is free, render the
 * report while the client keeps the lease renewed, save it with the lease's fence, release.
 * @example
 * const pass = await buildReports(lh, ['2026-10', '2026-11'], { spaceId, runId, holder: 'worker-1', store, render });
 */
export async function buildReports(lh: Leasehold, months: readonly string[], options: ReportWorkerOptions): Promise<ReportPass> {
  const run = lh.space(options.spaceId).run(options.runId, { holder: options.holder });
  const pass: ReportPass = { built: [], skipped: [], lost: [] };
  for (const month of months) {
    const key = `reports/${month}`;
    const lease = await run.claim(key).tryAcquire();
    if (lease === null) {
      pass.skipped.push(month);
      continue;
    }
    try {
      const body = await options.render(month, lease.signal);
      lease.throwIfLost();
      await options.store.save(key, body, lease.fence ?? 0);
      pass.built.push(month);
    } catch (error) {
      if (!(error instanceof LeaseLostError) && !lease.signal.aborted) throw error;
      pass.lost.push(month);
    } finally {
      await lease.release({ month }).catch(() => undefined);
    }
  }
  return pass;
}
