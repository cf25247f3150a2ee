import type { Grant } from './grant-flights.js';
import type { Lease } from './lease.js';
import type { LeaseBook } from './lease-tracker.js';

/** One lease-creating answer, as its kind parsed it, ready to become a tracked lease. */
export interface Adoption<L extends Lease> {
  /** The granted lease's claim id. */
  claimId: string;
  /** The session it was acquired with (its scheduler renews it). */
  session?: string | undefined;
  /** Whether a lease this client already tracks under `claimId` is of this kind (a replayed acquire: reused). */
  isSameKind(lease: Lease): lease is L;
  /** Builds the lease, its backend inside. */
  build(onListenerError: (error: unknown) => void): L;
  /** What the acquire granted, in ms (`null`: never expires). */
  durationMs: number | null;
  /** When the acquire was sent, on the scheduler's clock. */
  sentAt: number;
}

/**
 * The one adoption path of every kind of lease (space claim, task claim, spool message): a
 * replay naming a lease this client already tracks returns that lease (not fresh: someone else
 * ends it); otherwise the lease is built and registered with its session's scheduler, from when
 * its acquire was sent.
 */
export function adoptLease<L extends Lease>(book: LeaseBook, adoption: Adoption<L>): Grant<L> {
  const existing = book.tracked(adoption.claimId);
  if (existing !== undefined && adoption.isSameKind(existing)) return { lease: existing, fresh: false };
  const lease = adoption.build(book.onListenerError);
  return { lease: book.track(lease, { durationMs: adoption.durationMs, sentAt: adoption.sentAt }, adoption.session), fresh: true };
}
