import { LeaseLostError } from '../core/errors/lease-lost-error.js';
import type { Logger } from '../core/logger.js';
import type { Grant } from './grant-flights.js';
import type { Lease } from './lease.js';
import { leaseControl } from './lease-control.js';

/** One lease-creating request's outcome: its grant, and whether the answer was an idempotent replay. */
export interface Attempted<L extends Lease> {
  grant: Grant<L>;
  /** `Idempotent-Replayed: true`: the answer of an earlier request under the same key. */
  replayed: boolean;
}

/**
 * Whether the lease of a replayed grant is over: lost at once (the receipt's expiry had passed,
 * so its local deadline is already gone), or a renew now says it is lost, expired or stale (it
 * was released, completed or taken since). A queued space claim is left to the heartbeat; a
 * renew that fails otherwise (network, 5xx) says nothing, and the lease is kept.
 */
async function endedOnServer(lease: Lease): Promise<boolean> {
  if (lease.error !== undefined) return true;
  if (lease.status !== 'held') return false;
  try {
    await lease.renew();
    return false;
  } catch (error) {
    return error instanceof LeaseLostError;
  }
}

/**
 * Sends a lease-creating request (space acquire, task claim, spool receive) through `send`. When
 * the answer is a replay — a worker restarted with the same `operationId` — whose lease has
 * already ended, the replay is not handed to the caller (it would fail its first use with
 * `LeaseLostError`): the operation's stored key is forgotten and `send` runs once more, a new
 * acquire with a new key, so the caller gets a new grant (a larger fence) in the same call. A
 * replay whose lease is still good is returned as it is (renewed once on the way).
 */
export async function acquireUnlessEnded<L extends Lease>(send: () => Promise<Attempted<L> | null>, log: Logger): Promise<Grant<L> | null> {
  const first = await send();
  if (first === null) return null;
  const { grant } = first;
  if (!first.replayed || !grant.fresh || !(await endedOnServer(grant.lease))) return grant;
  await grant.lease[leaseControl].keyForgotten();
  log.info('A replayed acquire named a lease that had already ended; acquiring afresh.', { claimId: grant.lease.claimId, reason: grant.lease.error?.reason });
  const again = await send();
  return again === null ? null : again.grant;
}
