import type { Logger } from '../../core/logger.js';
import type { Lease } from '../lease.js';
import { leaseControl } from '../lease-control.js';
import { statusOf } from '../../core/retry/retryable.js';

/** How long a lease this client gave up on is kept for a release attempt (then forgotten: it has expired). */
export const ABANDONED_LEASE_WATCH_MS = 10 * 60_000;

/** A lease the client gave up on while the server may still hold it. */
interface AbandonedLease {
  lease: Lease;
  /** When to stop trying (monotonic ms). */
  until: number;
  /** A release of it is in flight. */
  sending: boolean;
}

/** Answers to a release that say the lease is gone on the server: nothing left to release. */
export function saysGone(error: unknown): boolean {
  const status = statusOf(error);
  return status === 404 || status === 409 || status === 410;
}

/**
 * The leases one scheduler gave up on — lost to their local deadline (a stall, failed
 * heartbeats) or whose release failed — while the server may still hold them. The heartbeat
 * names only tracked leases (`claimIds`), so such a lease is no longer renewed and expires at
 * the end of its term; releasing it frees its key or message sooner. Each gets ONE best-effort
 * release (no retries) when it is abandoned after a deadline loss, and again after every usable
 * heartbeat answer (the server is reachable) until a release succeeds or answers 404/409/410, or
 * {@link ABANDONED_LEASE_WATCH_MS} passes.
 */
export class AbandonedLeases {
  readonly #entries = new Map<string, AbandonedLease>();
  readonly #log: (level: keyof Logger, message: string, fields: Record<string, unknown>) => void;

  constructor(log: (level: keyof Logger, message: string, fields: Record<string, unknown>) => void) {
    this.#log = log;
  }

  /** How many leases are waiting for a release. */
  get size(): number {
    return this.#entries.size;
  }

  /** Remembers `lease` until `now` + the watch; with `releaseNow`, sends its release at once. */
  add(lease: Lease, now: number, releaseNow: boolean): void {
    const entry: AbandonedLease = { lease, until: now + ABANDONED_LEASE_WATCH_MS, sending: false };
    this.#entries.set(lease.claimId, entry);
    if (releaseNow) this.#release(entry);
  }

  /** The same claim adopted again (a replayed acquire): no longer abandoned. */
  delete(claimId: string): void {
    this.#entries.delete(claimId);
  }

  /** Forgets everything (the scheduler closed). */
  clear(): void {
    this.#entries.clear();
  }

  /** The server answered: one release attempt for each lease not being released already. */
  retry(now: number): void {
    for (const [claimId, entry] of this.#entries) {
      if (now >= entry.until) this.#entries.delete(claimId);
      else if (!entry.sending) this.#release(entry);
    }
  }

  #release(entry: AbandonedLease): void {
    entry.sending = true;
    const { claimId } = entry.lease;
    const drop = (): void => {
      if (this.#entries.get(claimId) === entry) this.#entries.delete(claimId);
    };
    let pending: Promise<void>;
    try {
      pending = entry.lease[leaseControl].releaseAbandoned();
    } catch (error) {
      pending = Promise.reject(error);
    }
    pending.then(
      () => {
        this.#log('info', 'Released a lease this client had given up on.', { claimId });
        drop();
      },
      (error: unknown) => {
        entry.sending = false;
        if (saysGone(error)) return drop();
        this.#log('warn', 'Releasing a lease this client gave up on failed; tried again after the next heartbeat answer.', {
          claimId,
          status: statusOf(error),
        });
      },
    );
  }
}
