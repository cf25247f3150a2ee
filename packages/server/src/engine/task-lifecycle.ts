import { toUtc } from './clock.js';

/**
 * How a task's last claim stands (wire `TaskClaimOutcome`): `held` (live), `completed`,
 * `released` (given back without completing), `expired` (its 15 minutes ran out), `revoked`
 * (an operator or a control took it away).
 */
export type TaskClaimOutcome = 'held' | 'completed' | 'released' | 'expired' | 'revoked';

/** The task's most recent claim (wire `TaskLastClaim`); never the token. */
export interface TaskLastClaim {
  claimId: string;
  holderSession: string | null;
  outcome: TaskClaimOutcome;
  startedUtc: string;
  endedUtc: string | null;
}

/** A task's status as this module reads it (`TaskStatus` of task-record.ts, which builds on this module). */
type Status = 'Todo' | 'InProgress' | 'Blocked' | 'Done';

/** What every store knows of a task's last claim, in epoch ms: the input of `taskLifecycle`. */
export interface LastClaimFacts {
  claimId: string;
  holderSession: string | null;
  startedAt: number;
  outcome: TaskClaimOutcome;
  /** When it ended (an expired claim: its expiry); `null` while held. */
  endedAt: number | null;
}

/** The lifecycle fields of the wire `Task`. */
export interface TaskLifecycle {
  attempts: number;
  stalled: boolean;
  availableUtc: string | null;
  lastClaim: TaskLastClaim | null;
}

/** The retry backoff after the first attempt that ended without completing: 5 s. */
export const TASK_RETRY_BACKOFF_INITIAL_MS = 5_000;

/** The retry backoff never exceeds 5 minutes. */
export const TASK_RETRY_BACKOFF_MAX_MS = 300_000;

/**
 * The backoff after attempt number `attempts` ended without completing:
 * `min(5 s × 2^(attempts−1), 300 s)`; none before any attempt (a requeued task).
 */
export function retryBackoffMs(attempts: number): number {
  if (attempts <= 0) return 0;
  return Math.min(TASK_RETRY_BACKOFF_INITIAL_MS * 2 ** Math.min(attempts - 1, 30), TASK_RETRY_BACKOFF_MAX_MS);
}

/**
 * The outcome of a claim nobody recorded an end for, from its lease's state at `now`: live while
 * held and unexpired; an expiry is `expired` at its `expiresAt`; any other loss is `revoked`.
 */
export function leaseOutcome(
  lease: { status: string; lostReason: string | null; expiresAt: number | null; endedAt: number | null },
  now: number,
): { outcome: TaskClaimOutcome; endedAt: number | null } {
  if (lease.status === 'held') {
    if (lease.expiresAt === null || lease.expiresAt > now) return { outcome: 'held', endedAt: null };
    return { outcome: 'expired', endedAt: lease.expiresAt };
  }
  if (lease.status === 'lost') return { outcome: lease.lostReason === 'expired' ? 'expired' : 'revoked', endedAt: lease.endedAt };
  return { outcome: 'released', endedAt: lease.endedAt };
}

/**
 * When `?claimable=true` lists the task again (epoch ms), or `null` for at once: the end of an
 * expired or released last claim plus `retryBackoffMs(attempts)`. Completed, revoked, live and
 * never-claimed tasks have nothing to wait for. The one rule; the SQL filter states it too.
 */
export function availableAt(attempts: number, last: LastClaimFacts | null): number | null {
  if (last === null || last.endedAt === null) return null;
  if (last.outcome !== 'expired' && last.outcome !== 'released') return null;
  const backoff = retryBackoffMs(attempts);
  return backoff === 0 ? null : last.endedAt + backoff;
}

/** A task is stalled when it is `InProgress` and nobody holds a live claim on it. */
export function isStalled(status: Status, live: boolean): boolean {
  return status === 'InProgress' && !live;
}

/** A worker may take the task now: `Todo` or stalled, unclaimed, and past its backoff. */
export function isClaimable(status: Status, live: boolean, available: number | null, now: number): boolean {
  return (status === 'Todo' || status === 'InProgress') && !live && (available === null || available <= now);
}

/** The wire lifecycle fields of a task, from what its store knows (the same for every store). */
export function taskLifecycle(status: Status, attempts: number, last: LastClaimFacts | null): TaskLifecycle {
  const live = last !== null && last.outcome === 'held';
  const available = availableAt(attempts, last);
  return {
    attempts,
    stalled: isStalled(status, live),
    availableUtc: available === null ? null : toUtc(available),
    lastClaim:
      last === null
        ? null
        : {
            claimId: last.claimId,
            holderSession: last.holderSession,
            outcome: last.outcome,
            startedUtc: toUtc(last.startedAt),
            endedUtc: last.endedAt === null ? null : toUtc(last.endedAt),
          },
  };
}
