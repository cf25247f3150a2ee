import { spaceClaimDurationMs, TASK_CLAIM_DURATION_MS, type LeaseKind } from './lease-kind.js';

/**
 * How long a lease of one kind lives after each renewal, the per-kind rule a {@link Lease}
 * follows without asking its kind: space claims the heartbeat's clamped `ttl`, task claims their
 * fixed 15 minutes, spool leases their queue's timeout (learned from the grant, then from every
 * explicit renew).
 */
export interface LeaseTerm {
  /** How long one heartbeat with `ttlSeconds` keeps the lease, in ms (`null`: never expires); `termMs` is its current term. */
  heartbeatMs(ttlSeconds: number, termMs: number | null | undefined): number | null;
  /** An explicit renew granted `durationMs`. */
  renewed(durationMs: number | null): void;
}

const spaceTerm: LeaseTerm = {
  heartbeatMs: (ttlSeconds) => spaceClaimDurationMs(ttlSeconds),
  renewed() {},
};

const taskTerm: LeaseTerm = {
  heartbeatMs: () => TASK_CLAIM_DURATION_MS,
  renewed() {},
};

/** A spool lease: reset to its queue's timeout, as the grant (or the latest renew) said; else its registered term. */
class SpoolTerm implements LeaseTerm {
  constructor(private timeoutMs: number | null | undefined) {}

  heartbeatMs(_ttlSeconds: number, termMs: number | null | undefined): number | null {
    return this.timeoutMs ?? termMs ?? null;
  }

  renewed(durationMs: number | null): void {
    this.timeoutMs = durationMs;
  }
}

/** The term rule of a lease of `kind` (`spoolTimeoutMs`: a spool queue's lease timeout, when known). */
export function leaseTermFor(kind: LeaseKind, spoolTimeoutMs?: number | null): LeaseTerm {
  switch (kind) {
    case 'space':
      return spaceTerm;
    case 'task':
      return taskTerm;
    case 'spool':
      return new SpoolTerm(spoolTimeoutMs);
  }
}
