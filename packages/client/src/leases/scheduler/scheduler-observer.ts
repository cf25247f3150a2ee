import type { LeaseKind } from '../lease-kind.js';
import type { CountedLossReason } from './renewal-stats.js';

/**
 * Internal: what a renewal scheduler reports as it works, for metrics (the client's
 * OpenTelemetry adapter implements it). Every method is called synchronously and must not throw.
 */
export interface SchedulerObserver {
  /** A heartbeat naming `leases` claim ids was sent (a retry when `retry`). */
  heartbeatSent(leases: number, retry: boolean): void;
  /** A heartbeat ended after `durationMs`: answered (`ok`) or failed. */
  heartbeatEnded(durationMs: number, ok: boolean): void;
  /** `count` leases were renewed (by a heartbeat answer, or an explicit renew). */
  renewed(count: number, via: 'heartbeat' | 'renew'): void;
  /** A registered lease of `kind` was lost. */
  lost(kind: LeaseKind, reason: CountedLossReason): void;
}
