import { EngineError } from './errors.js';
import type { LeaseRecord } from './lease-record.js';

/** A token that does not hold the key it names. */
export function notHeld(): EngineError {
  return new EngineError('claim_not_held', 'This token does not hold the key.', 'token');
}

/** The run (scope) of the claim was cancelled. */
export function scopeCancelled(): EngineError {
  return new EngineError('scope_cancelled', 'The run was cancelled.', 'scopeId');
}

/** Why a lost lease no longer answers: its run was cancelled, or it expired. */
export function lostError(lease: LeaseRecord): EngineError {
  if (lease.lostReason === 'scope_cancelled') return scopeCancelled();
  return new EngineError('lease_expired', 'The lease expired; the key may have passed to someone else.', 'token');
}
