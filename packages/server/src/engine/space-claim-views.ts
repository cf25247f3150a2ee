import type { Details, LeaseRecord, LeaseStatus } from './lease-record.js';
import { queueIndexOf, type KeyState, type PreviousRelease } from './space-state.js';

/** A claim row (wire `Claim`); `token` only in the acquire answer. */
export interface Claim {
  object: 'claim';
  claimId: string;
  spaceId: string;
  key: string;
  scopeId: string;
  holder: string;
  holderSession: string;
  status: LeaseStatus;
  fence: number | null;
  leaseSeconds: number;
  expiresAt: number;
  acquiredAt: number | null;
  position?: number;
  queueDepth: number;
  details: Details | null;
  previousRelease: PreviousRelease | null;
  token?: string;
}

/** The answer to a release (wire `ReleasedClaim`). */
export interface ReleasedClaim {
  object: 'claim_release';
  claimId: string;
  spaceId: string;
  key: string;
  scopeId: string;
  holder: string;
  released: true;
  releasedAt: number;
  observation: unknown;
}

/** One page of held claims (wire `ClaimList`). */
export interface ClaimList {
  object: 'list';
  data: Claim[];
  nextCursor: string | null;
}

/** The answer to a run cancellation (wire `ScopeCancellation`). */
export interface ScopeCancellation {
  object: 'scope_cancellation';
  spaceId: string;
  scopeId: string;
  cancelled: true;
  cancelledAt: number;
  claimsLost: number;
}

/** Build the claim row of a live space lease (`withToken` only for the acquirer). */
export function claimView(lease: LeaseRecord, state: KeyState, withToken: boolean): Claim {
  const queued = lease.status === 'queued';
  const claim: Claim = {
    object: 'claim',
    claimId: lease.claimId,
    spaceId: lease.spaceId as string,
    key: lease.key as string,
    scopeId: lease.scopeId as string,
    holder: lease.holder as string,
    holderSession: lease.holderSession as string,
    status: lease.status === 'released' ? 'lost' : lease.status,
    fence: lease.fence,
    leaseSeconds: lease.leaseSeconds as number,
    expiresAt: lease.expiresAt as number,
    acquiredAt: lease.acquiredAt,
    queueDepth: state.queue.length,
    details: lease.details,
    previousRelease: queued ? null : state.previousRelease,
  };
  if (queued) claim.position = queueIndexOf(state.queue, lease) + 1;
  if (withToken) claim.token = lease.token;
  return claim;
}

/** Build the release answer of a space lease that has a release row. */
export function releasedView(lease: LeaseRecord): ReleasedClaim {
  const row = lease.released;
  return {
    object: 'claim_release',
    claimId: lease.claimId,
    spaceId: lease.spaceId as string,
    key: lease.key as string,
    scopeId: lease.scopeId as string,
    holder: lease.holder as string,
    released: true,
    releasedAt: row?.releasedAt ?? 0,
    observation: row?.observation ?? null,
  };
}
