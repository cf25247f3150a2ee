import type { LeaseBackend } from './lease-backend.js';
import type { LeaseTiming } from './lease-deadline.js';
import type { LeaseKind } from './lease-kind.js';

/** Everything a `Lease` is built from; the adoption path fills it from an acquire answer. */
export interface LeaseInit {
  /** Opaque, stable id, as the batch heartbeat reports it. */
  claimId: string;
  /** The secret token (space/task) or `Spooler-Lease` value (spool). */
  token: string;
  /** The grant's fence; `null` while a space claim is queued. */
  fence: number | null;
  /** What the lease guards. */
  kind: LeaseKind;
  /** The per-kind renew and release calls. */
  backend: LeaseBackend;
  /** `held` (default) or `queued` (a space claim waiting for its key). */
  status?: 'held' | 'queued';
  /** The server's expiry (epoch ms), informational only; `null` = never expires. */
  expiresAt?: number | null;
  /** A queued claim's place (1 = next). */
  position?: number;
  /** How many claimants wait for the key. */
  queueDepth?: number;
  /** Spool leases: the queue's lease timeout in ms (`null`: never expires); default: the duration registered first. */
  spoolTimeoutMs?: number | null;
  /** Clock and margins used while no scheduler is attached (default `performance.now()`). */
  timing?: Partial<LeaseTiming>;
  /** Where an error thrown by an event listener goes (default: rethrown on a microtask). */
  onListenerError?: (error: unknown) => void;
}
