import { LeaseholdError } from '../core/errors/leasehold-error.js';

/**
 * A lease was granted with too little time left to start work on it (a replayed claim close to
 * its expiry): it was released, and the work did not start. Read the task and try again.
 */
export class UnusableLeaseError extends LeaseholdError {
  override name = 'UnusableLeaseError';
  /** The released lease's claim id. */
  readonly claimId: string;
  /** The time it had left by the server's clock, in ms. */
  readonly remainingMs: number;
  /** The least time left that work accepts, in ms. */
  readonly minRemainingMs: number;

  constructor(claimId: string, remainingMs: number, minRemainingMs: number) {
    super(`Lease ${claimId} had ${Math.round(remainingMs / 1000)} s left, under the ${Math.round(minRemainingMs / 1000)} s needed to start work; it was released.`);
    this.claimId = claimId;
    this.remainingMs = remainingMs;
    this.minRemainingMs = minRemainingMs;
  }
}
