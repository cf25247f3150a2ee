import { canSeeSpace } from './credentials.js';
import { EngineError } from './errors.js';
import type { LeaseEngine } from './lease-engine.js';
import type { LeaseRecord } from './lease-record.js';
import { notHeld } from './space-claim-errors.js';
import type { KeyParams } from './space-claim-params.js';
import { requireKey } from './space-keys.js';
import { requireUuid } from './validation.js';

/** The held space lease a token names for (space, key), or `claim_not_held` / `space_not_found`. */
export function spaceLeaseOfToken(leases: LeaseEngine, params: KeyParams & { token: string }): LeaseRecord {
  const key = requireKey(params.key);
  const spaceId = requireUuid(params.spaceId, 'spaceId');
  if (!canSeeSpace(params.credential, spaceId)) throw new EngineError('space_not_found', 'No such space.', 'spaceId');
  if (typeof params.token !== 'string' || params.token.length === 0) {
    throw new EngineError('invalid_request', 'token is required.', 'token');
  }
  const lease = leases.byToken('lht_', params.token);
  if (
    lease === undefined ||
    lease.kind !== 'space' ||
    lease.accountId !== params.credential.accountId ||
    lease.spaceId !== spaceId ||
    lease.key !== key
  ) {
    throw notHeld();
  }
  return lease;
}
