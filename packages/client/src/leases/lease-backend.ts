import type { LeaseLostError } from '../core/errors.js';

/** What one explicit renewal granted: its duration (`null`: never expires) and, if known, the server's new expiry. */
export interface LeaseRenewal {
  /** The granted duration in ms, counted by the caller from when the renew request was sent; `null` = never expires. */
  durationMs: number | null;
  /** The new expiry by the server clock (epoch ms), informational only. */
  expiresAt?: number;
}

/**
 * The per-kind calls behind a {@link Lease}: the resource layer implements one per space claim,
 * task claim or spool lease. Both may reject with the SDK's API errors; the lease maps them.
 */
export interface LeaseBackend {
  /** Renews this one lease now (space: renew; task: renew with If-Match; spool: renew). */
  renew(): Promise<LeaseRenewal>;
  /** Releases this lease on the server (space/task: release; spool: nack or ack as the backend decides). */
  release(observation?: unknown): Promise<void>;
  /**
   * Internal: the lease was lost (never called for a release): after its signal aborted, before
   * its `lost` listeners run. A throw goes where listener errors go. @internal
   */
  lost?(error: LeaseLostError): void;
  /**
   * Internal: ONE release attempt (no retries) of a lease this client gave up on (lost to its
   * local deadline, or whose release failed) while the server still reports it held or queued.
   * Without it the scheduler calls `release()`. @internal
   */
  releaseAbandoned?(): Promise<void>;
}
