import { ClientClosedError } from '../core/transport/client-closed-error.js';
import { AbortError } from '../core/errors/connection-errors.js';
import type { Logger } from '../core/logger.js';
import type { Lease } from './lease.js';

/** How long a request whose caller gave up (abort, close) may still answer before it is cut off. */
export const ORPHANED_GRANT_GRACE_MS = 5_000;

/** What a lease-creating request resolved to: the lease, and whether this request created it. */
export interface Grant<L extends Lease> {
  lease: L;
  /** False when the answer named a lease this client already tracked (a replay): it is someone else's to end. */
  fresh: boolean;
}

/** What {@link GrantFlights} needs from the client. */
export interface GrantFlightsInit {
  /** Aborted when the client starts closing. */
  closeSignal: AbortSignal;
  /** Where failed cleanups are reported. */
  log: Logger;
}

/**
 * Every request that may grant a lease (space acquire, task claim, spool receive) goes through
 * here, so that no grant is ever left behind untracked. If the caller's `signal` aborts (or the
 * client closes) while the request is out, the caller is rejected at once (`AbortError`, or
 * `ClientClosedError`), but the request itself is NOT cut off: it may have been granted already.
 * It gets {@link ORPHANED_GRANT_GRACE_MS} more to answer, and whatever it was granted is released
 * at once (one attempt). Only a request that does not answer in time is cut off; its lease, never
 * named by a heartbeat, then expires at the end of its term. `close()` waits for these.
 */
export class GrantFlights {
  readonly #closeSignal: AbortSignal;
  readonly #log: Logger;
  readonly #pending = new Set<Promise<void>>();

  constructor(init: GrantFlightsInit) {
    this.#closeSignal = init.closeSignal;
    this.#log = init.log;
  }

  /** How many requests (and their cleanups) are out. */
  get size(): number {
    return this.#pending.size;
  }

  /**
   * Sends `request` (given the signal that cuts it off) and returns its grant's lease (`null`:
   * nothing granted, e.g. an empty queue). Rejects with `AbortError` when `signal` aborts first,
   * `ClientClosedError` when the client closes first; a grant arriving afterwards is released.
   */
  obtain<L extends Lease>(signal: AbortSignal | undefined, request: (signal: AbortSignal) => Promise<Grant<L> | null>): Promise<L | null> {
    if (this.#closeSignal.aborted) return Promise.reject(new ClientClosedError());
    if (signal?.aborted) return Promise.reject(new AbortError(undefined, { cause: signal.reason }));
    const cutOff = new AbortController();
    let orphaned = false;
    let grace: ReturnType<typeof setTimeout> | undefined;
    return new Promise<L | null>((resolve, reject) => {
      const giveUp = (error: Error): void => {
        if (orphaned) return;
        orphaned = true;
        stopListening();
        grace = setTimeout(() => cutOff.abort(new AbortError('The request was abandoned by its caller.')), ORPHANED_GRANT_GRACE_MS);
        (grace as { unref?: () => void }).unref?.();
        reject(error);
      };
      const onAbort = (): void => giveUp(new AbortError(undefined, { cause: signal?.reason }));
      const onClose = (): void => giveUp(new ClientClosedError());
      const stopListening = (): void => {
        signal?.removeEventListener('abort', onAbort);
        this.#closeSignal.removeEventListener('abort', onClose);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#closeSignal.addEventListener('abort', onClose, { once: true });

      let outcome: Promise<Grant<L> | null>;
      try {
        outcome = request(cutOff.signal);
      } catch (error) {
        outcome = Promise.reject(error);
      }
      const settled = outcome.then(
        async (grant) => {
          clearTimeout(grace);
          stopListening();
          if (!orphaned && !this.#closeSignal.aborted) return resolve(grant?.lease ?? null);
          if (!orphaned) reject(new ClientClosedError());
          orphaned = true;
          if (grant?.fresh) await this.#releaseOrphan(grant.lease);
        },
        (error: unknown) => {
          clearTimeout(grace);
          stopListening();
          if (!orphaned) reject(error);
        },
      );
      this.#pending.add(settled);
      void settled.finally(() => this.#pending.delete(settled));
    });
  }

  /** Resolves once every request out (and the release of what it was granted) has settled. */
  async settled(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
  }

  async #releaseOrphan(lease: Lease): Promise<void> {
    try {
      await lease.release();
      this.#log.info('Released a lease granted after its caller gave up.', { claimId: lease.claimId });
    } catch (error) {
      this.#log.warn('Releasing a lease granted after its caller gave up failed; no heartbeat names it, so it expires at the end of its term.', {
        claimId: lease.claimId,
        error: String(error),
      });
    }
  }
}
