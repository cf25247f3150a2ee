import { LeaseLostError, type LeaseLostReason } from '../core/errors/index.js';

/** 409 codes that say nothing about the lease being gone: still queued, or idempotency bookkeeping. */
const NOT_A_LOSS_409 = new Set(['claim_queued', 'idempotency_in_flight', 'idempotency_key_reused']);

function field(error: unknown, name: 'status' | 'code'): unknown {
  return typeof error === 'object' && error !== null ? (error as Record<string, unknown>)[name] : undefined;
}

/**
 * Why a failed renew (or settle) means the lease is gone, or `undefined` when the error says
 * nothing about it (network, 5xx, 429, 409 `claim_queued`, ...): 410 / `stale_token` → `stale`,
 * `lease_expired` → `expired`, 409 `scope_cancelled` → `cancelled`, any other 409 → `lost`.
 */
export function leaseLostReasonOf(error: unknown): LeaseLostReason | undefined {
  if (error instanceof LeaseLostError) return error.reason;
  const status = field(error, 'status');
  const rawCode = field(error, 'code');
  const code = typeof rawCode === 'string' ? rawCode : undefined;
  if (code === 'lease_expired') return 'expired';
  if (code === 'scope_cancelled') return 'cancelled';
  if (code === 'stale_token' || status === 410) return 'stale';
  if (status === 409) return code !== undefined && NOT_A_LOSS_409.has(code) ? undefined : 'lost';
  return undefined;
}

/** The {@link LeaseLostError} a renew error amounts to for `claimId` (cause: the error), or `undefined`. */
export function toLeaseLostError(error: unknown, claimId: string): LeaseLostError | undefined {
  if (error instanceof LeaseLostError) return error;
  const reason = leaseLostReasonOf(error);
  return reason === undefined ? undefined : new LeaseLostError(reason, claimId, { cause: error });
}
