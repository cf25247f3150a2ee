/**
 * The leases a scheduler tracks (the registry and its scans) and the hooks each lease calls back.
 */
import { LeaseholdError } from '../../core/errors/leasehold-error.js';
import type { Lease } from '../lease.js';
import { leaseControl, type LeaseHooks } from '../lease-control.js';
import type { LeaseDeadline, LeaseTiming } from '../lease-deadline.js';
import { statusOf } from '../../core/retry/retryable.js';
import { saysGone } from './abandoned-leases.js';
import type { SchedulerReports } from './scheduler-reports.js';

/** What one pass over the registry found. */
export interface RegistryScan {
  /** Leases aborted by this pass (deadline passed, or missing from an answer). */
  lost: number;
  /** When the next renewal is due (monotonic ms; `Infinity` when no lease expires). */
  due: number;
}

/** Options of {@link LeaseRegistry.scan}. */
export interface ScanOptions {
  /** Report leases whose at-risk time has come. */
  atRisk: boolean;
  /** Abort, as `lost`, leases stamped up to `generation` that the answer `sequence` did not list. */
  missingFrom?: { generation: number; sequence: number } | undefined;
  /** Jitter factor applied to each lease's renewal interval when computing `due`. */
  factor?: number;
}

/**
 * The leases one scheduler renews, by claimId, with cached lower bounds of their deadlines
 * (never later than the truth: a stale bound only causes an early wake-up and a fresh scan).
 */
export class LeaseRegistry {
  readonly #leases = new Map<string, Lease>();
  #generation = 0;
  /** Lower bound of the registered leases' local deadlines. */
  earliestDeadline = Infinity;
  /** Lower bound of the at-risk times not yet reported. */
  earliestAtRisk = Infinity;
  /** Lower bound of the registered leases' finite terms. */
  shortestTermMs = Infinity;

  /** How many leases are registered. */
  get size(): number {
    return this.#leases.size;
  }

  /** The stamp of the latest registration. */
  get generation(): number {
    return this.#generation;
  }

  /** The registered lease with this claimId. */
  get(claimId: string): Lease | undefined {
    return this.#leases.get(claimId);
  }

  /** Whether this very lease object is registered. */
  has(lease: Lease): boolean {
    return this.#leases.get(lease.claimId) === lease;
  }

  /** Registers a lease and stamps it with a new generation. */
  add(lease: Lease): void {
    lease[leaseControl].generation = ++this.#generation;
    this.#leases.set(lease.claimId, lease);
  }

  /**
   * Registers `lease`, attached to `hooks`, unless this very lease is registered already (returns
   * whether it was added). Refuses another lease with the same claimId, or one another scheduler renews.
   */
  adopt(lease: Lease, hooks: LeaseHooks): boolean {
    const existing = this.get(lease.claimId);
    if (existing === lease) return false;
    if (existing !== undefined) throw new LeaseholdError(`Another lease with claimId ${lease.claimId} is already registered.`);
    const control = lease[leaseControl];
    if (control.hooks !== undefined && control.hooks !== hooks) {
      throw new LeaseholdError(`Lease ${lease.claimId} is registered with another scheduler.`);
    }
    control.attach(hooks);
    this.add(lease);
    return true;
  }

  /** Removes this very lease object; returns whether it was registered. */
  delete(lease: Lease): boolean {
    if (!this.has(lease)) return false;
    this.#leases.delete(lease.claimId);
    return true;
  }

  /** The claimIds of every registered lease (what the batch heartbeat names). */
  claimIds(): string[] {
    return [...this.#leases.keys()];
  }

  /** Removes and returns every lease. */
  drain(): Lease[] {
    const leases = [...this.#leases.values()];
    this.#leases.clear();
    this.resetBounds();
    return leases;
  }

  /** Forgets the cached bounds. */
  resetBounds(): void {
    this.earliestDeadline = this.earliestAtRisk = this.shortestTermMs = Infinity;
  }

  /** Lowers the cached bounds to cover a lease whose deadline just changed. */
  note(deadline: LeaseDeadline): void {
    if (deadline.termMs !== null && deadline.termMs !== undefined) {
      this.shortestTermMs = Math.min(this.shortestTermMs, deadline.termMs);
    }
    this.earliestDeadline = Math.min(this.earliestDeadline, deadline.deadline);
    if (!deadline.atRiskReported) this.earliestAtRisk = Math.min(this.earliestAtRisk, deadline.atRiskAt);
  }

  /**
   * One pass: aborts leases past their local deadline (reason `deadline`) and, with
   * `missingFrom`, those the answer should have listed (reason `lost`); then reports leases at
   * risk; recomputes the bounds exactly and returns when the next renewal is due. Aborts and
   * reports happen after the pass, so listeners may change the registry freely.
   */
  scan(now: number, options: ScanOptions): RegistryScan {
    const doomed: Array<[Lease, 'deadline' | 'lost']> = [];
    const atRisk: Lease[] = [];
    const { missingFrom, factor = 1 } = options;
    let shortest = Infinity;
    let earliest = Infinity;
    let risk = Infinity;
    let due = Infinity;
    for (const lease of this.#leases.values()) {
      const control = lease[leaseControl];
      const d = control;
      if (now >= d.deadline) {
        doomed.push([lease, 'deadline']);
        continue;
      }
      if (missingFrom && control.generation <= missingFrom.generation && control.seenIn !== missingFrom.sequence) {
        doomed.push([lease, 'lost']);
        continue;
      }
      if (!d.atRiskReported) {
        if (options.atRisk && now >= d.atRiskAt) atRisk.push(lease);
        else risk = Math.min(risk, d.atRiskAt);
      }
      earliest = Math.min(earliest, d.deadline);
      if (d.termMs !== null && d.termMs !== undefined) shortest = Math.min(shortest, d.termMs);
      due = Math.min(due, d.renewalDueAt(factor));
    }
    this.earliestDeadline = earliest;
    this.earliestAtRisk = risk;
    this.shortestTermMs = shortest;
    for (const [lease, reason] of doomed) lease[leaseControl].lose(reason);
    for (const lease of atRisk) lease[leaseControl].atRisk(now);
    return { lost: doomed.length, due };
  }
}

/** What the hooks of a scheduler's leases act on: the scheduler's own bookkeeping. */
export interface HooksHost {
  readonly reports: SchedulerReports;
  /** Whether this very lease is registered. */
  has(lease: Lease): boolean;
  /** The lease's deadline changed outside a heartbeat: re-plan the next wake-up. */
  changed(lease: Lease): void;
  /** Stops renewing the lease. */
  forget(lease: Lease): void;
  /** Remembers a lease given up on (a release at once with `releaseNow`). */
  abandon(lease: Lease, releaseNow: boolean): void;
}

/**
 * The hooks every lease registered with one scheduler calls: an explicit renew re-plans the
 * next heartbeat; a loss is counted and logged, and a lease lost to its local deadline (the
 * server may still hold it) gets a release at once; a release stops renewal, and a release the
 * server did not confirm is retried after later heartbeat answers.
 */
export function leaseHooks(host: HooksHost, timing: LeaseTiming): LeaseHooks {
  return {
    timing,
    changed: (lease, via) => {
      host.changed(lease as Lease);
      host.reports.renewedOutside(via);
    },
    lost: (controlled, reason) => {
      const lease = controlled as Lease;
      if (!host.has(lease)) return;
      host.reports.lost(lease.claimId, lease.kind, reason);
      host.forget(lease);
      // Lost only locally: the server may still hold it until its term ends; release it now.
      if (reason === 'deadline') host.abandon(lease, true);
    },
    released: (controlled, done) => {
      const lease = controlled as Lease;
      host.forget(lease);
      done.catch((error: unknown) => {
        if (!saysGone(error)) host.abandon(lease, false);
      });
    },
  };
}

/** Releases every lease (the scheduler closes), one attempt each; failures are logged, never thrown. */
export async function releaseAll(leases: Lease[], reports: SchedulerReports): Promise<void> {
  const outcomes = await Promise.allSettled(leases.map((lease) => lease.release()));
  outcomes.forEach((outcome, i) => {
    if (outcome.status === 'rejected') {
      reports.log('warn', 'Lease release failed while closing.', { claimId: leases[i]?.claimId, status: statusOf(outcome.reason) });
    }
  });
}
