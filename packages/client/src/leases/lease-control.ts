import type { LeaseLostReason } from '../core/errors/index.js';
import type { LeaseDeadline, LeaseTiming } from './lease-deadline.js';

/** Internal: the key of a lease's control surface (for the scheduler, not for SDK users). */
export const leaseControl: unique symbol = Symbol('leasehold.leaseControl');

/** Internal: a lease as its scheduler handles it: its claim id and its control surface. */
export interface ControlledLease {
  readonly claimId: string;
  readonly [leaseControl]: LeaseControl;
}

/** Internal: what the scheduler renewing a lease hears from it, and the timing it imposes. */
export interface LeaseHooks {
  /** The scheduler's clock and margins; the lease computes its deadlines with them. */
  readonly timing: LeaseTiming;
  /** The lease's deadline or term changed outside the scheduler's heartbeats (an explicit renew, or a raw `lh.heartbeat()`). */
  changed(lease: ControlledLease, via: 'renew' | 'heartbeat'): void;
  /** The lease was lost (never called for a release). */
  lost(lease: ControlledLease, reason: LeaseLostReason): void;
  /** The lease was released by its holder: stop renewing it now. `done` settles with the server's answer. */
  released(lease: ControlledLease, done: Promise<void>): void;
}

/**
 * Internal: the operations a scheduler performs on a lease it renews. It is also the lease's local
 * deadline bookkeeping (one object per lease; `record()` is its raw arithmetic, use `renewed()`).
 */
export interface LeaseControl extends LeaseDeadline {
  /** Whether the lease is still held or queued (neither lost nor released). */
  readonly active: boolean;
  /** The attached scheduler's hooks, if any. */
  readonly hooks: LeaseHooks | undefined;
  /** Registration order stamp, owned by the scheduler (covers "missing from an answer"). */
  generation: number;
  /** Sequence number of the last heartbeat answer that listed this lease, owned by the scheduler. */
  seenIn: number;
  /** Attaches (or, with `undefined`, detaches) a scheduler without changing the lease's state. */
  attach(hooks: LeaseHooks | undefined): void;
  /** Records a renewal sent at `sentAt`; loses the lease (`deadline`) if its new local deadline already passed. */
  renewed(sentAt: number, durationMs: number | null, ack: RenewalAck, via: RenewalSource): void;
  /** Records a queued ack: the place lives `durationMs` from `sentAt`. */
  queued(sentAt: number, durationMs: number | null, info: QueuedInfo): void;
  /** Reports the lease at risk (once per term). */
  atRisk(now: number): void;
  /** Aborts the lease as lost with `reason` (no-op when already lost or released). */
  lose(reason: LeaseLostReason, cause?: unknown): void;
  /** Loses the lease (`deadline`) if its local deadline has passed, now. */
  checkDeadline(): void;
  /** One best-effort release (no retries) of a lease the client gave up on; rejects with the API error. */
  releaseAbandoned(): Promise<void>;
  /** Resolves once the operation key of the lease's acquire is forgotten (see `LeaseBackend.keyForgotten`). */
  keyForgotten(): Promise<void>;
}

/** Which path renewed a lease. */
export type RenewalSource = 'heartbeat' | 'renew' | 'register';

/** What a renewal answer says besides its duration. */
export interface RenewalAck {
  /** The server's new expiry (epoch ms); absent when it did not say. */
  expiresAt?: number | undefined;
  /** How many claimants wait for the key (space claims). */
  queueDepth?: number | undefined;
}

/** What a queued ack says about a waiting claim. */
export interface QueuedInfo {
  position?: number | undefined;
  queueDepth?: number | undefined;
  expiresAt?: number | undefined;
}
