import { LeaseholdError } from '../errors/leasehold-error.js';

/** The error every call made after `Leasehold.close()` rejects with (never retried). */
export class ClientClosedError extends LeaseholdError {
  override name = 'ClientClosedError';

  constructor() {
    super('The Leasehold client is closed.');
  }
}
