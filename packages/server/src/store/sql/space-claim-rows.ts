import type { Claim, Details, PreviousRelease, ReleasedClaim } from '../../engine/index.js';
import type { SqlSession } from './driver.js';
import { parseJson } from './sql-support.js';

/** A space lease with what its claim row shows (its key's last release, the queue around it). */
export interface ClaimRow {
  lease_id: number;
  claim_id: string;
  space_id: string;
  key: string;
  scope_id: string;
  holder: string;
  holder_session: string;
  status: 'held' | 'queued' | 'lost' | 'released';
  fence: number | null;
  lease_seconds: number;
  expires_at: number;
  acquired_at: number | null;
  details: string | null;
  prev_release: string | null;
  queue_depth: number;
  position: number;
}

/** The claim rows of `leaseIds` at `now` (waiters whose time ran out are not counted). */
export async function claimRows(tx: SqlSession, leaseIds: readonly number[], now: number): Promise<ClaimRow[]> {
  const { rows } = await tx.query<ClaimRow>(
    `SELECT l.lease_id, l.claim_id, l.space_id, l.key, l.scope_id, l.holder, l.holder_session, l.status,
            l.fence, l.lease_seconds, l.expires_at, l.acquired_at, l.details, k.prev_release,
            (SELECT count(*)::int FROM leasehold.leases q
              WHERE q.key_id = l.key_id AND q.kind = 'space' AND q.status = 'queued' AND q.expires_at > $2) AS queue_depth,
            (SELECT count(*)::int FROM leasehold.leases q
              WHERE q.key_id = l.key_id AND q.kind = 'space' AND q.status = 'queued' AND q.expires_at > $2
                AND q.lease_id <= l.lease_id) AS position
       FROM leasehold.leases l JOIN leasehold.space_keys k ON k.key_id = l.key_id
      WHERE l.lease_id = ANY($1::bigint[])
      ORDER BY k.sort_key, l.lease_id`,
    [leaseIds, now],
  );
  return rows;
}

/** The wire claim row (the engine's `claimView`, field for field); `token` only for the acquirer. */
export function claimFromRow(row: ClaimRow, token?: string): Claim {
  const queued = row.status === 'queued';
  const claim: Claim = {
    object: 'claim',
    claimId: row.claim_id,
    spaceId: row.space_id,
    key: row.key,
    scopeId: row.scope_id,
    holder: row.holder,
    holderSession: row.holder_session,
    status: row.status === 'released' ? 'lost' : row.status,
    fence: row.fence,
    leaseSeconds: row.lease_seconds,
    expiresAt: row.expires_at,
    acquiredAt: row.acquired_at,
    queueDepth: row.queue_depth,
    details: parseJson<Details>(row.details),
    previousRelease: queued ? null : parseJson<PreviousRelease>(row.prev_release),
  };
  if (queued) claim.position = row.position;
  if (token !== undefined) claim.token = token;
  return claim;
}

/** The release answer of a lease that has a release row (the engine's `releasedView`). */
export function releasedFromRow(row: {
  claim_id: string;
  space_id: string;
  key: string;
  scope_id: string;
  holder: string;
  released_at: number | null;
  observation: string | null;
}): ReleasedClaim {
  return {
    object: 'claim_release',
    claimId: row.claim_id,
    spaceId: row.space_id,
    key: row.key,
    scopeId: row.scope_id,
    holder: row.holder,
    released: true,
    releasedAt: row.released_at ?? 0,
    observation: parseJson(row.observation),
  };
}
