import { EngineError } from './errors.js';
import type { HeartbeatResult } from './heartbeat-result.js';
import type { Details, LeaseRecord } from './lease-record.js';
import type { LeaseEngine } from './lease-engine.js';

/** Who is heartbeating: the lease index is per credential. */
export interface HeartbeatCaller {
  /** The calling credential. */
  readonly credentialId: string;
  /** Its account (heartbeat rates are counted per account and session). */
  readonly accountId: string;
}

/** A batch heartbeat request, `ttl` already parsed to seconds (see `parseTtl`). */
export interface HeartbeatParams {
  /** The calling credential. */
  credential: HeartbeatCaller;
  /**
   * Seconds, or `null` for each lease's own term; space claims clamp it to 5–600, tasks and
   * spools renew by their own rules.
   */
  ttl: number | null;
  /** Touch only this lease. */
  claimId?: string | undefined;
  /** Touch exactly these leases (the ones the client tracks); every other lease is left to expire. */
  claimIds?: readonly string[] | undefined;
  /** Touch only the leases acquired with this session. */
  holderSession?: string | undefined;
  /** Progress report stored on every touched lease. */
  details?: Details | null | undefined;
}

/**
 * The heartbeat's `claimId` filter: an empty string is no filter (as if it were left out: every
 * lease of the credential, or of `holderSession`, is touched).
 * @example
 * heartbeatClaimId(''); // undefined
 */
export function heartbeatClaimId(claimId: string | undefined): string | undefined {
  return claimId === '' ? undefined : claimId;
}

/**
 * Renew every lease of a credential (or one, by `claimId`; or exactly those named in `claimIds`)
 * in one pass, linear in that credential's leases (or in the ids named): held space claims are extended, waiters keep their place, task claims get
 * 15 minutes, spool leases reset to their queue's timeout, and each loss since the last report is
 * answered once as `lost`.
 */
export function heartbeat(leases: LeaseEngine, params: HeartbeatParams): HeartbeatResult[] {
  const now = leases.sync();
  const { credential, ttl, claimId, claimIds, holderSession, details } = params;
  if (claimIds !== undefined) {
    if (claimId !== undefined) throw new EngineError('invalid_request', 'Send claimId or claimIds, not both.', 'claimIds');
    return touchNamed(leases, params, claimIds, now);
  }
  if (claimId !== undefined) {
    const lease = leases.byClaimId(claimId);
    if (
      lease === undefined ||
      lease.credentialId !== credential.credentialId ||
      lease.status === 'released' ||
      (holderSession !== undefined && lease.holderSession !== holderSession)
    ) {
      throw new EngineError('claim_not_found', 'No lease of this credential has that claimId.', 'claimId');
    }
    return [touch(leases, lease, ttl, now, details)];
  }
  const set = leases.leasesOf(credential.credentialId);
  if (set === undefined) return [];
  const results: HeartbeatResult[] = [];
  for (const lease of set) {
    if (holderSession !== undefined && lease.holderSession !== holderSession) continue;
    results.push(touch(leases, lease, ttl, now, details));
  }
  return results;
}

/**
 * The `claimIds` form: one ack per distinct id, in the order named; an id this heartbeat may not
 * touch (unknown, released, another credential's or session's) is answered `lost`, like a lease
 * lost since the last report, so a stale id never fails the batch and reveals nothing.
 */
function touchNamed(leases: LeaseEngine, params: HeartbeatParams, claimIds: readonly string[], now: number): HeartbeatResult[] {
  const { credential, ttl, holderSession, details } = params;
  const seen = new Set<string>();
  const results: HeartbeatResult[] = [];
  for (const claimId of claimIds) {
    if (seen.has(claimId)) continue;
    seen.add(claimId);
    const lease = leases.byClaimId(claimId);
    const touchable =
      lease !== undefined &&
      lease.credentialId === credential.credentialId &&
      lease.status !== 'released' &&
      (holderSession === undefined || lease.holderSession === holderSession);
    results.push(touchable ? touch(leases, lease, ttl, now, details) : { claimId, status: 'lost' });
  }
  return results;
}

function touch(
  leases: LeaseEngine,
  lease: LeaseRecord,
  ttl: number | null,
  now: number,
  details: Details | null | undefined,
): HeartbeatResult {
  if (!lease.live) {
    leases.markReported(lease);
    return { claimId: lease.claimId, status: 'lost' };
  }
  if (details !== undefined) lease.details = details;
  return leases.handler(lease.kind).heartbeat(lease, ttl, now);
}
