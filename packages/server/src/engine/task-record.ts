import { toUtc } from './clock.js';
import type { Details, LeaseRecord } from './lease-record.js';
import { leaseOutcome, taskLifecycle, type LastClaimFacts, type TaskClaimOutcome, type TaskLastClaim } from './task-lifecycle.js';

/** Where a task stands; `Done` is final. */
export type TaskStatus = 'Todo' | 'InProgress' | 'Blocked' | 'Done';

/**
 * At most this many notes per task (`plan_limit_exceeded` beyond; the closing note of a complete
 * is always kept), so a task's answer stays bounded however long it is worked on.
 */
export const MAX_NOTES_PER_TASK = 1000;

/** Task claims last 15 minutes from the grant or the last renewal. */
export const TASK_LEASE_SECONDS = 900;

/** A note on a task (wire `TaskNote`). */
export interface TaskNote {
  object: 'task_note';
  id: string;
  taskId: number;
  text: string;
  createdUtc: string;
  claimId: string | null;
}

/** The engine's record of one task. */
export interface TaskRecord {
  readonly id: number;
  readonly accountId: string;
  title: string;
  description: string;
  status: TaskStatus;
  version: number;
  /** The live claim, or `null`. */
  claim: LeaseRecord | null;
  /** Ended claims still remembered (≤ 10 min), to tell `lease_expired` from `claim_not_held`. */
  pastClaims: LeaseRecord[];
  /** Claims granted since creation or the last requeue (every claim is one attempt). */
  attempts: number;
  /** The most recent claim, and its end once recorded (`null`: judge by the lease's state). */
  lastClaim: RecordedClaim | null;
  notes: TaskNote[];
  result: unknown;
  readonly createdAt: number;
  updatedAt: number;
  completedAt: number | null;
}

/** A task's last claim: its lease, and how it ended when a write ended it (complete, release, revoke). */
export interface RecordedClaim {
  readonly lease: LeaseRecord;
  outcome: Exclude<TaskClaimOutcome, 'held' | 'expired'> | null;
  endedAt: number | null;
}

/** Who holds a task's claim (wire `TaskClaimSummary`); never the token. */
export interface TaskClaimSummary {
  claimId: string;
  fence: number;
  expiresUtc: string;
  holderSession: string | null;
  details: Details | null;
}

/** A task (wire `Task`). */
export interface Task {
  object: 'task';
  id: number;
  title: string;
  description: string;
  status: TaskStatus;
  version: number;
  claim: TaskClaimSummary | null;
  attempts: number;
  stalled: boolean;
  availableUtc: string | null;
  lastClaim: TaskLastClaim | null;
  notes: TaskNote[];
  result: unknown;
  createdUtc: string;
  updatedUtc: string;
  completedUtc: string | null;
}

/** A task claim (wire `TaskClaim`); `token` only in the claim answer. */
export interface TaskClaim {
  object: 'task_claim';
  claimId: string;
  taskId: number;
  token?: string;
  fence: number;
  expiresUtc: string;
  leaseSeconds: number;
}

/** The answer to a claim release (wire `TaskClaimRelease`). */
export interface TaskClaimRelease {
  object: 'task_claim_release';
  claimId: string;
  taskId: number;
  released: true;
  releasedUtc: string;
}

/** A task with the ETag the HTTP layer sends in the `ETag` header. */
export interface TaskResult {
  task: Task;
  etag: string;
}

/** The task's current ETag: `"task-{id}-v{version}"`. */
export function taskEtag(task: Pick<TaskRecord, 'id' | 'version'>): string {
  return `"task-${task.id}-v${task.version}"`;
}

/** Build the wire view of a task. */
export function taskView(task: TaskRecord): Task {
  const lease = task.claim;
  return {
    object: 'task',
    id: task.id,
    title: task.title,
    description: task.description,
    status: task.status,
    version: task.version,
    claim:
      lease === null
        ? null
        : {
            claimId: lease.claimId,
            fence: lease.fence as number,
            expiresUtc: toUtc(lease.expiresAt as number),
            holderSession: lease.holderSession,
            details: lease.details,
          },
    ...taskLifecycle(task.status, task.attempts, lastClaimFacts(task)),
    notes: task.notes.slice(),
    result: task.result,
    createdUtc: toUtc(task.createdAt),
    updatedUtc: toUtc(task.updatedAt),
    completedUtc: task.completedAt === null ? null : toUtc(task.completedAt),
  };
}

/** The facts of a task's last claim: its recorded end, else its lease's state (live or expired/lost). */
export function lastClaimFacts(task: TaskRecord): LastClaimFacts | null {
  const last = task.lastClaim;
  if (last === null) return null;
  const { lease } = last;
  const ended =
    last.outcome !== null ? { outcome: last.outcome, endedAt: last.endedAt }
    : task.claim === lease ? { outcome: 'held' as const, endedAt: null }
    : leaseOutcome(lease, lease.expiresAt ?? 0);
  return { claimId: lease.claimId, holderSession: lease.holderSession, startedAt: lease.acquiredAt ?? 0, ...ended };
}

/** Build a task result (view + ETag). */
export function taskResult(task: TaskRecord): TaskResult {
  return { task: taskView(task), etag: taskEtag(task) };
}

/** Build the wire view of a task claim (`withToken` only for the claimer). */
export function taskClaimView(task: TaskRecord, lease: LeaseRecord, withToken: boolean): TaskClaim {
  const view: TaskClaim = {
    object: 'task_claim',
    claimId: lease.claimId,
    taskId: task.id,
    fence: lease.fence as number,
    expiresUtc: toUtc(lease.expiresAt as number),
    leaseSeconds: TASK_LEASE_SECONDS,
  };
  if (withToken) view.token = lease.token;
  return view;
}

/** A claim was granted: one more attempt, and it is the task's last claim. */
export function startAttempt(task: TaskRecord, lease: LeaseRecord): void {
  task.attempts++;
  task.lastClaim = { lease, outcome: null, endedAt: null };
}

/** A write ended the task's last claim (`lease`) at `at`, as `outcome`. */
export function endAttempt(task: TaskRecord, lease: LeaseRecord, outcome: NonNullable<RecordedClaim['outcome']>, at: number): void {
  if (task.lastClaim?.lease !== lease) return;
  task.lastClaim.outcome = outcome;
  task.lastClaim.endedAt = at;
}
