import type { LeaseStatus } from './lease-record.js';

/** One heartbeat ack (the wire `HeartbeatResult`). */
export interface HeartbeatResult {
  /** The lease's claim id. */
  claimId: string;
  /** `held`, `queued` or `lost`. */
  status: LeaseStatus;
  /** The new expiry (epoch ms); absent for lost leases and never-expiring spool leases. */
  expiresAt?: number;
  /** Queued space claims only: place in the queue, 1 = next. */
  position?: number;
  /** Space claims only: how many claimants wait for the key. */
  queueDepth?: number;
}
