import { LeaseholdError, type LeaseholdErrorOptions } from './leasehold-error.js';

/**
 * Why a lease stopped protecting its work: `expired` (its expiry passed before a renewal landed),
 * `lost` (the server reported it lost, e.g. a heartbeat ack), `stale` (410 `stale_token`),
 * `cancelled` (its run was cancelled), `released` (released by this holder), `deadline` (the
 * local safety deadline passed without a confirmed renewal).
 */
export type LeaseLostReason = 'expired' | 'lost' | 'stale' | 'cancelled' | 'released' | 'deadline';

/**
 * The lease guarding some work is gone: stop the work, do not retry the write.
 * @example
 * try { await lease.renew(); } catch (error) { if (error instanceof LeaseLostError && error.reason === 'stale') console.warn('stop: the lease is gone'); }
 */
export class LeaseLostError extends LeaseholdError {
  override name = 'LeaseLostError';
  /** Why the lease is gone. */
  readonly reason: LeaseLostReason;
  /** The lost lease's claim id (never its token). */
  readonly claimId: string;

  constructor(reason: LeaseLostReason, claimId: string, options: LeaseholdErrorOptions & { message?: string } = {}) {
    super(options.message ?? `Lease ${claimId} is no longer held (${reason}).`, options);
    this.reason = reason;
    this.claimId = claimId;
  }
}
