import type { Logger } from '../logger.js';
import type { IdempotencyStore } from './idempotency-store.js';

/**
 * Forgets the stored key of an operation whose lease ended (see `LeaseEndings`): never throws —
 * a failure is logged, and the entry then expires after its ttl.
 */
export function operationKeyForgetter(store: IdempotencyStore | undefined, log: Logger): (operationId: string | undefined) => Promise<void> {
  return async (operationId) => {
    if (operationId === undefined || store === undefined) return;
    try {
      await store.delete(operationId);
    } catch (error) {
      log.warn(`Could not delete the stored idempotency key of operation ${operationId}; it expires after its ttl.`, { error: String(error) });
    }
  };
}
