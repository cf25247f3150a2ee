import type { LeaseLostError } from '../core/errors/lease-lost-error.js';
import type { Logger } from '../core/logger.js';
import type { Lease } from './lease.js';

/** How {@link runUnderLease} ends the lease. */
export interface LeaseSettlement<T> {
  /** After `fn` resolved: by default release (a failure is logged, the value still returned). */
  onSuccess?: (value: T) => Promise<void>;
  /** After `fn` threw (the lease still held): by default release (a failure is logged; `fn`'s error is rethrown). */
  onError?: (error: unknown) => Promise<void>;
}

/** The lease's loss, if it is lost (a release by its holder is not a loss). */
export function lossOf(lease: Lease): LeaseLostError | undefined {
  const error = lease.error;
  return error !== undefined && error.reason !== 'released' ? error : undefined;
}

/**
 * Runs `fn(lease)` and ends the lease whatever happens. If the lease is lost first, `fn`'s
 * `lease.signal` aborts and this rejects at once with the {@link LeaseLostError} (`fn` is left
 * to notice its signal; its outcome is ignored); a loss after `fn` returned changes nothing.
 */
export async function runUnderLease<L extends Lease, T>(
  lease: L,
  fn: (lease: L) => T | Promise<T>,
  log: Logger,
  settlement: LeaseSettlement<T> = {},
): Promise<T> {
  const release = async (): Promise<void> => {
    try {
      await lease.release();
    } catch (error) {
      log.warn('Releasing the lease failed; it is retried after the next heartbeat answer; no heartbeat names it, so it expires at worst.', { claimId: lease.claimId, error: String(error) });
    }
  };
  lease.throwIfLost(); // lost or released before fn could start
  let onAbort: (() => void) | undefined;
  const lost = new Promise<never>((_, reject) => {
    onAbort = () => {
      const loss = lossOf(lease);
      if (loss) reject(loss);
    };
    lease.signal.addEventListener('abort', onAbort, { once: true });
  });
  lost.catch(() => {});
  let work: Promise<T>;
  try {
    work = Promise.resolve(fn(lease));
  } catch (error) {
    work = Promise.reject(error);
  }
  work.catch(() => {});
  let value: T;
  try {
    value = await Promise.race([work, lost]);
  } catch (error) {
    const loss = lossOf(lease);
    if (loss) throw loss;
    await (settlement.onError ? settlement.onError(error) : release());
    throw error;
  } finally {
    if (onAbort) lease.signal.removeEventListener('abort', onAbort);
  }
  await (settlement.onSuccess ? settlement.onSuccess(value) : release());
  return value;
}
