import type { LeaseLostError } from '../core/errors/index.js';
import type { RenewalSource } from './lease-control.js';

/** Payload of a lease's `renewed` event. */
export interface LeaseRenewedEvent {
  /** What renewed it: the batch heartbeat, an explicit `renew()`, or the registration itself. */
  via: RenewalSource;
  /** The granted duration in ms (`null`: never expires). */
  durationMs: number | null;
  /** The server's new expiry (epoch ms), when it said; informational only. */
  expiresAt: number | null;
  /** Milliseconds left until the new local deadline (monotonic). */
  remainingMs: number;
}

/** Payload of a lease's `atRisk` event: renewal has not succeeded and the local deadline nears. */
export interface LeaseAtRiskEvent {
  /** Milliseconds left until the lease is aborted with reason `deadline`. */
  remainingMs: number;
}

/** Payload of a lease's `granted` event: a queued claim now holds its key. Read its fence next. */
export interface LeaseGrantedEvent {
  /** The server's new expiry (epoch ms), when it said. */
  expiresAt: number | null;
}

/** Payload of a lease's `queued` event: its place in the key's queue. */
export interface LeaseQueuedEvent {
  /** The place in the queue (1 = next), when reported. */
  position: number | undefined;
  /** How many claimants wait for the key, when reported. */
  queueDepth: number | undefined;
}

/** Every event a {@link Lease} emits, by name. */
export interface LeaseEvents {
  /** The lease was renewed (its local deadline moved). */
  renewed: LeaseRenewedEvent;
  /** Renewal has not succeeded and the local deadline is at most about one cadence away. */
  atRisk: LeaseAtRiskEvent;
  /** The lease can no longer be trusted; its `signal` is already aborted with the same error. */
  lost: LeaseLostError;
  /** A queued claim was granted. */
  granted: LeaseGrantedEvent;
  /** A queued claim's place was confirmed. */
  queued: LeaseQueuedEvent;
}
