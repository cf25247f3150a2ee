import type { Lease } from '../lease.js';
import type { LeaseHooks } from '../lease-control.js';
import type { LeaseTiming } from '../lease-deadline.js';
import { statusOf } from '../../core/retry/retryable.js';
import { saysGone } from './abandoned-leases.js';
import type { SchedulerReports } from './scheduler-reports.js';

/** What the hooks of a scheduler's leases act on: the scheduler's own bookkeeping. */
export interface HooksHost {
  readonly reports: SchedulerReports;
  /** Whether this very lease is registered. */
  has(lease: Lease): boolean;
  /** The lease's deadline changed outside a heartbeat: re-plan the next wake-up. */
  changed(lease: Lease): void;
  /** Stops renewing the lease. */
  forget(lease: Lease): void;
  /** Remembers a lease given up on (a release at once with `releaseNow`). */
  abandon(lease: Lease, releaseNow: boolean): void;
}

/**
 * The hooks every lease registered with one scheduler calls: an explicit renew re-plans the
 * next heartbeat; a loss is counted and logged, and a lease lost to its local deadline (the
 * server may still hold it) gets a release at once; a release stops renewal, and a release the
 * server did not confirm is retried after later heartbeat answers.
 */
export function leaseHooks(host: HooksHost, timing: LeaseTiming): LeaseHooks {
  return {
    timing,
    changed: (lease, via) => {
      host.changed(lease as Lease);
      host.reports.renewedOutside(via);
    },
    lost: (controlled, reason) => {
      const lease = controlled as Lease;
      if (!host.has(lease)) return;
      host.reports.lost(lease.claimId, lease.kind, reason);
      host.forget(lease);
      // Lost only locally: the server may still hold it until its term ends; release it now.
      if (reason === 'deadline') host.abandon(lease, true);
    },
    released: (controlled, done) => {
      const lease = controlled as Lease;
      host.forget(lease);
      done.catch((error: unknown) => {
        if (!saysGone(error)) host.abandon(lease, false);
      });
    },
  };
}

/** Releases every lease (the scheduler closes), one attempt each; failures are logged, never thrown. */
export async function releaseAll(leases: Lease[], reports: SchedulerReports): Promise<void> {
  const outcomes = await Promise.allSettled(leases.map((lease) => lease.release()));
  outcomes.forEach((outcome, i) => {
    if (outcome.status === 'rejected') {
      reports.log('warn', 'Lease release failed while closing.', { claimId: leases[i]?.claimId, status: statusOf(outcome.reason) });
    }
  });
}
