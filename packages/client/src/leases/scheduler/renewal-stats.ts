import type { LeaseLostReason } from '../../core/errors/index.js';

/** The loss reasons a scheduler counts (a release is not a loss). */
export type CountedLossReason = Exclude<LeaseLostReason, 'released'>;

/** What a `RenewalScheduler` has done since it was created. */
export interface RenewalStats {
  /** Leases registered right now. */
  leases: number;
  /** Batch heartbeats sent (retries included). */
  heartbeatsSent: number;
  /** Heartbeats answered with a usable 200. */
  heartbeatsSucceeded: number;
  /** Per-lease renewals carried by those heartbeats: the single-lease requests they replaced. */
  leasesRenewed: number;
  /** Heartbeats that failed (rejected, timed out or malformed). */
  failures: number;
  /** Heartbeats sent as a retry after a failure. */
  retries: number;
  /** Event-loop stalls detected. */
  stalls: number;
  /** Leases lost while registered, by how the loss was detected. */
  lost: Record<CountedLossReason, number>;
}

/** A fresh, all-zero stats record. */
export function emptyRenewalStats(): RenewalStats {
  return {
    leases: 0,
    heartbeatsSent: 0,
    heartbeatsSucceeded: 0,
    leasesRenewed: 0,
    failures: 0,
    retries: 0,
    stalls: 0,
    lost: { lost: 0, deadline: 0, stale: 0, cancelled: 0, expired: 0 },
  };
}
