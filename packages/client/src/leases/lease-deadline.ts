/** How a lease's local deadline is derived from a renewal: the clock and the margins in use. */
export interface LeaseTiming {
  /** Monotonic milliseconds (never wall-clock). */
  now(): number;
  /** Safety margin subtracted from a granted duration to absorb clock drift and latency. */
  driftMarginMs(durationMs: number): number;
  /** How long before its local deadline an unrenewed lease is reported at risk. */
  atRiskLeadMs(durationMs: number): number;
}

/** The default drift margin: max(1 s, 5 % of the duration), never more than half of it. */
export function defaultDriftMarginMs(durationMs: number): number {
  return Math.min(durationMs / 2, Math.max(1000, durationMs * 0.05));
}

/** The default at-risk lead: a third of the duration (the lease's own cadence) plus 10 % jitter. */
export function defaultAtRiskLeadMs(durationMs: number): number {
  return (durationMs / 3) * 1.1;
}

/** The timing used by a lease that no scheduler renews: `performance.now()` and the default margins. */
export const defaultLeaseTiming: LeaseTiming = {
  now: () => performance.now(),
  driftMarginMs: defaultDriftMarginMs,
  atRiskLeadMs: defaultAtRiskLeadMs,
};

/**
 * A lease's local deadline on a monotonic clock, counted from when the renewing request was
 * SENT (a slow answer never extends it) minus a drift margin. Server `expiresAt` values are
 * never compared with the local clock.
 */
export class LeaseDeadline {
  /** The duration of the current term in ms; `null` = never expires; `undefined` before any grant. */
  termMs: number | null | undefined = undefined;
  /** When the request behind the current term was sent (monotonic ms). */
  sentAt = -Infinity;
  /** The local deadline (monotonic ms); `Infinity` when the lease never expires. */
  deadline = Infinity;
  /** When the lease counts as at risk unless renewed (monotonic ms). */
  atRiskAt = Infinity;
  /** Whether `atRisk` was already reported for the current term. */
  atRiskReported = false;

  /**
   * Records a renewal sent at `sentAt` granting `durationMs`. An answer to a request older than
   * the current term's (answers may arrive out of order) can only shorten the term: the server
   * kept whichever it processed last, so the safe bound is the newer send time plus the shorter
   * duration. Returns whether the answer was the newest.
   */
  record(sentAt: number, grantedMs: number | null, timing: LeaseTiming): boolean {
    // A duration that is not a finite non-negative number (a bug upstream) counts as nothing
    // granted: the lease is lost at once, never kept with a NaN or infinite deadline.
    const durationMs = grantedMs === null || (Number.isFinite(grantedMs) && grantedMs >= 0) ? grantedMs : 0;
    if (!Number.isFinite(sentAt)) sentAt = timing.now();
    const newest = sentAt >= this.sentAt || this.termMs === undefined;
    if (newest) {
      this.sentAt = sentAt;
      this.termMs = durationMs;
    } else if (durationMs !== null) {
      this.termMs = this.termMs === null || this.termMs === undefined ? durationMs : Math.min(this.termMs, durationMs);
    }
    const previous = this.deadline;
    const term = this.termMs;
    if (term === null || term === undefined) {
      this.deadline = Infinity;
      this.atRiskAt = Infinity;
    } else {
      this.deadline = this.sentAt + term - timing.driftMarginMs(term);
      this.atRiskAt = this.deadline - timing.atRiskLeadMs(term);
    }
    if (this.deadline > previous) this.atRiskReported = false;
    return newest;
  }

  /** When the next renewal of this lease is due: a third of its term after its last send (scaled by `factor`). */
  renewalDueAt(factor = 1): number {
    const term = this.termMs;
    return term === null || term === undefined ? Infinity : this.sentAt + (term / 3) * factor;
  }
}
