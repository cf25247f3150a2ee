import type { HeartbeatResult } from './heartbeat-result.js';
import type { LeaseEngine } from './lease-engine.js';
import type { LeaseRecord } from './lease-record.js';
import { SPACE_LEASE_MAX_SECONDS, SPACE_LEASE_MIN_SECONDS } from './space-claim-params.js';
import { queueIndexOf, type KeyState } from './space-state.js';

/**
 * A space lease's heartbeat (held: extend; queued: keep its place). An extension, never a cut:
 * the expiry moves to now + `ttl` (clamped to 5–600 s) only when that is later than the current
 * one, so a short `ttl` (the seed page's `{"ttl": 0}`) never shortens a lease the holder asked
 * for. A `ttl` of `null` (absent) extends by the lease's own term (its `leaseSeconds`). (Spool
 * leases differ: their heartbeat resets, as their renew does.)
 */
export function heartbeatSpaceLease(leases: LeaseEngine, lease: LeaseRecord, ttlSeconds: number | null, now: number): HeartbeatResult {
  const state = lease.owner as KeyState;
  const seconds = Math.min(SPACE_LEASE_MAX_SECONDS, Math.max(SPACE_LEASE_MIN_SECONDS, ttlSeconds ?? lease.leaseSeconds ?? SPACE_LEASE_MIN_SECONDS));
  const extended = Math.round(now + seconds * 1000);
  const current = lease.expiresAt;
  const expiresAt = current !== null && current >= extended ? current : extended;
  if (expiresAt === extended) leases.setExpiry(lease, expiresAt);
  if (lease.status === 'held') {
    if (expiresAt === extended) lease.leaseSeconds = Math.round(seconds);
    return { claimId: lease.claimId, status: 'held', expiresAt, queueDepth: state.queue.length };
  }
  const position = queueIndexOf(state.queue, lease) + 1;
  return { claimId: lease.claimId, status: 'queued', expiresAt, position, queueDepth: state.queue.length };
}
