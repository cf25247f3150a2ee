import type { Caller } from './credentials.js';
import { toUtc } from './clock.js';
import { EngineError } from './errors.js';
import type { HeartbeatResult } from './heartbeat-result.js';
import type { LeaseEngine, LeaseKindHandler } from './lease-engine.js';
import type { LeaseRecord } from './lease-record.js';
import { randomBase62, randomUuidV4 } from './random.js';
import { checkIfMatch, guardProtectedWrite, matchTaskClaim, validateTaskToken } from './task-guards.js';
import {
  MAX_NOTES_PER_TASK,
  TASK_LEASE_SECONDS,
  endAttempt,
  startAttempt,
  taskClaimView,
  taskEtag,
  taskResult,
  type TaskClaim,
  type TaskClaimRelease,
  type TaskRecord,
  type TaskResult,
  type TaskStatus,
} from './task-record.js';
import { requireStorableJson } from './json-value.js';
import { createSortedMap, type SortedMap } from './sorted-map.js';
import { pageOfClaimableTasks, pageOfTasks, taskListQuery, type TaskList, type TaskListParams } from './task-list.js';
import { validateChanges, type TaskChanges } from './task-changes.js';
import { requireString } from './validation.js';

/** Address one task, with the caller's `If-Match`. */
export interface TaskWrite {
  credential: Caller;
  taskId: number;
  ifMatch: string | null | undefined;
}

/** The fields `update` may change. */
export type { TaskChanges } from './task-changes.js';

/** A protected write: also the raw `X-Task-Claim` header (absent = `undefined`). */
export interface ProtectedTaskWrite extends TaskWrite {
  claimToken?: string | undefined;
}


/** One account's tasks: by id (ids run from 1), and by status in id order (for filtered lists). */
interface AccountTasks {
  nextId: number;
  tasks: Map<number, TaskRecord>;
  byStatus: Map<TaskStatus, SortedMap<number, TaskRecord>>;
}

/**
 * Tasks of each account (integer ids from 1) and their 15-minute claims, guarded by ETag and
 * If-Match. Every operation validates and checks everything before it changes anything, so a
 * failed call leaves no trace. Implements the `task` lease kind.
 */
export class Tasks implements LeaseKindHandler {
  readonly #leases: LeaseEngine;
  readonly #accounts = new Map<string, AccountTasks>();

  /** Tasks on top of the shared lease engine. */
  constructor(leases: LeaseEngine) {
    this.#leases = leases;
    leases.register('task', this);
  }

  /** Create a task (status `Todo`, version 1). */
  create(params: { credential: Caller; title: string; description?: string | undefined }): TaskResult {
    const now = this.#leases.sync();
    const title = requireString(params.title, 1, 500, 'title');
    const description = params.description === undefined ? '' : requireString(params.description, 0, 20000, 'description');
    const account = this.#account(params.credential.accountId);
    const task: TaskRecord = {
      id: account.nextId++,
      accountId: params.credential.accountId,
      title,
      description,
      status: 'Todo',
      version: 1,
      claim: null,
      pastClaims: [],
      attempts: 0,
      lastClaim: null,
      notes: [],
      result: null,
      createdAt: now,
      updatedAt: now,
      completedAt: null,
    };
    account.tasks.set(task.id, task);
    indexStatus(account, task);
    return taskResult(task);
  }

  /**
   * One page of the account's tasks in id order, optionally only those with `status`, after the
   * task a `cursor` stands for (see `pageOfTasks`).
   */
  list(params: TaskListParams & { credential: Caller }): TaskList {
    const now = this.#leases.sync();
    const { status, claimable, after, limit } = taskListQuery(params);
    const account = this.#accounts.get(params.credential.accountId);
    if (account === undefined) return { object: 'list', data: [], nextCursor: null };
    if (claimable) {
      const statuses = CLAIMABLE_STATUSES.filter((s) => status === undefined || s === status);
      const indexes = statuses.flatMap((s) => account.byStatus.get(s) ?? []);
      return pageOfClaimableTasks(indexes, { after, limit }, now);
    }
    const byStatus = status === undefined ? undefined : account.byStatus.get(status);
    return pageOfTasks(account.tasks, account.nextId, byStatus, { status, after, limit });
  }

  /** Read a task and its ETag. */
  get(params: { credential: Caller; taskId: number }): TaskResult {
    this.#leases.sync();
    return taskResult(this.#task(params.credential, params.taskId));
  }

  /** Claim a task for 15 minutes; the answer (only) carries the UUID token. The ETag does not change. */
  claim(params: TaskWrite & { holderSession?: string | null | undefined }): { claim: TaskClaim; etag: string } {
    const now = this.#leases.sync();
    const task = this.#task(params.credential, params.taskId);
    checkIfMatch(task, params.ifMatch);
    if (task.status === 'Done') throw completed();
    if (task.claim !== null) throw new EngineError('task_claimed', 'Another worker holds a live claim on this task.');
    const lease = this.#leases.create({
      kind: 'task',
      token: { value: randomUuidV4(this.#leases.random) },
      credentialId: params.credential.credentialId,
      accountId: task.accountId,
      holderSession: params.holderSession ?? null,
      owner: task,
      leaseSeconds: TASK_LEASE_SECONDS,
    });
    this.#leases.grant(lease, now, now + TASK_LEASE_SECONDS * 1000);
    task.claim = lease;
    // The ETag versions the task, not its lease: a claim, renew or release keeps it (the
    // claim's own safety is the token, `X-Task-Claim` and the fence), so the If-Match read
    // before the claim still serves its renew and release.
    startAttempt(task, lease);
    return { claim: taskClaimView(task, lease, true), etag: taskEtag(task) };
  }

  /** Renew the live claim for 15 minutes from now; the ETag does not change. */
  renew(params: TaskWrite & { token: unknown }): { claim: TaskClaim; etag: string } {
    const now = this.#leases.sync();
    const token = validateTaskToken(params.token, 'token');
    const task = this.#task(params.credential, params.taskId);
    checkIfMatch(task, params.ifMatch);
    const lease = matchTaskClaim(task, token, 'token');
    this.#leases.setExpiry(lease, now + TASK_LEASE_SECONDS * 1000);
    return { claim: taskClaimView(task, lease, false), etag: taskEtag(task) };
  }

  /** Release the live claim now; the ETag does not change. */
  release(params: TaskWrite & { token: unknown }): { release: TaskClaimRelease; etag: string } {
    const now = this.#leases.sync();
    const token = validateTaskToken(params.token, 'token');
    const task = this.#task(params.credential, params.taskId);
    checkIfMatch(task, params.ifMatch);
    const lease = matchTaskClaim(task, token, 'token');
    this.#endClaim(task, lease, now);
    endAttempt(task, lease, 'released', now);
    const release: TaskClaimRelease = {
      object: 'task_claim_release',
      claimId: lease.claimId,
      taskId: task.id,
      released: true,
      releasedUtc: toUtc(now),
    };
    return { release, etag: taskEtag(task) };
  }

  /** Append a note (protected write). */
  addNote(params: ProtectedTaskWrite & { text: string }): TaskResult {
    const now = this.#leases.sync();
    const text = requireString(params.text, 1, 20000, 'text');
    const { task, lease } = this.#protected(params);
    if (task.notes.length >= MAX_NOTES_PER_TASK) {
      throw new EngineError('plan_limit_exceeded', `A task holds at most ${MAX_NOTES_PER_TASK} notes.`, 'text');
    }
    this.#note(task, text, lease, now);
    this.#bump(task, now);
    return taskResult(task);
  }

  /** Change status (`Todo`/`InProgress`/`Blocked`), title or description (protected write). */
  update(params: ProtectedTaskWrite & { changes: TaskChanges }): TaskResult {
    const now = this.#leases.sync();
    const changes = validateChanges(params.changes);
    const { task } = this.#protected(params, () => {
      throw new EngineError('invalid_transition', 'A Done task cannot change.', 'status');
    });
    if (changes.status !== undefined) this.#setStatus(task, changes.status);
    if (changes.title !== undefined) task.title = changes.title;
    if (changes.description !== undefined) task.description = changes.description;
    this.#bump(task, now);
    return taskResult(task);
  }

  /** Complete the task (protected write): `Done`, result kept, claim released in the same write. */
  complete(params: ProtectedTaskWrite & { result?: unknown; note?: string | undefined }): TaskResult {
    const now = this.#leases.sync();
    const note = params.note === undefined ? undefined : requireString(params.note, 1, 20000, 'note');
    const result = requireStorableJson(params.result ?? null, 'result');
    const { task, lease } = this.#protected(params, () => {
      throw completed();
    });
    if (note !== undefined) this.#note(task, note, lease, now);
    if (lease !== null) this.#endClaim(task, lease, now);
    if (lease !== null) endAttempt(task, lease, 'completed', now);
    this.#setStatus(task, 'Done');
    task.result = result;
    task.completedAt = now;
    this.#bump(task, now);
    return taskResult(task);
  }

  /**
   * An operator takes the live claim away (no token): it ends now as `revoked` (the holder's
   * heartbeat reports it `lost`), and the task is claimable at once.
   */
  revokeClaim(params: TaskWrite): TaskResult {
    const now = this.#leases.sync();
    const task = this.#task(params.credential, params.taskId);
    checkIfMatch(task, params.ifMatch);
    if (task.status === 'Done') throw completed();
    if (task.claim === null) throw new EngineError('claim_not_held', 'The task has no live claim to revoke.');
    this.#revoke(task, now);
    this.#bump(task, now);
    return taskResult(task);
  }

  /**
   * An operator puts the task back: any live claim revoked, status `Todo`, `attempts` 0 and no
   * backoff, so it is claimable at once and counts its attempts afresh.
   */
  requeue(params: TaskWrite): TaskResult {
    const now = this.#leases.sync();
    const task = this.#task(params.credential, params.taskId);
    checkIfMatch(task, params.ifMatch);
    if (task.status === 'Done') throw completed();
    if (task.claim !== null) this.#revoke(task, now);
    this.#setStatus(task, 'Todo');
    task.attempts = 0;
    this.#bump(task, now);
    return taskResult(task);
  }

  #revoke(task: TaskRecord, now: number): void {
    const lease = task.claim as LeaseRecord;
    this.#leases.lose(lease, now, 'revoked');
    endAttempt(task, lease, 'revoked', now);
  }

  /** Lease-kind hook: the claim expired or was taken away. */
  detach(lease: LeaseRecord, _at: number): void {
    const task = lease.owner as TaskRecord;
    if (task.claim === lease) task.claim = null;
    task.pastClaims.push(lease);
  }

  /** Lease-kind hook: a heartbeat renews a task claim for its fixed 15 minutes. */
  heartbeat(lease: LeaseRecord, _ttlSeconds: number, now: number): HeartbeatResult {
    const expiresAt = now + TASK_LEASE_SECONDS * 1000;
    this.#leases.setExpiry(lease, expiresAt);
    return { claimId: lease.claimId, status: 'held', expiresAt };
  }

  /** Lease-kind hook: forget an ended claim. */
  purge(lease: LeaseRecord): void {
    const task = lease.owner as TaskRecord;
    const index = task.pastClaims.indexOf(lease);
    if (index >= 0) task.pastClaims.splice(index, 1);
  }

  #protected(
    params: ProtectedTaskWrite,
    onDone?: () => never,
  ): { task: TaskRecord; lease: LeaseRecord | null } {
    const token = params.claimToken === undefined ? undefined : validateTaskToken(params.claimToken, 'X-Task-Claim');
    const task = this.#task(params.credential, params.taskId);
    checkIfMatch(task, params.ifMatch);
    if (task.status === 'Done' && onDone !== undefined) onDone();
    return { task, lease: guardProtectedWrite(task, token) };
  }

  #note(task: TaskRecord, text: string, lease: LeaseRecord | null, now: number): void {
    task.notes.push({
      object: 'task_note',
      id: `note_${randomBase62(this.#leases.random, 12)}`,
      taskId: task.id,
      text,
      createdUtc: toUtc(now),
      claimId: lease?.claimId ?? null,
    });
  }

  #endClaim(task: TaskRecord, lease: LeaseRecord, now: number): void {
    this.#leases.release(lease, now, null);
    task.claim = null;
    task.pastClaims.push(lease);
  }

  #bump(task: TaskRecord, now: number): void {
    task.version++;
    task.updatedAt = now;
  }

  #setStatus(task: TaskRecord, status: TaskStatus): void {
    if (task.status === status) return;
    const account = this.#account(task.accountId);
    account.byStatus.get(task.status)?.delete(task.id);
    task.status = status;
    indexStatus(account, task);
  }

  #account(accountId: string): AccountTasks {
    let account = this.#accounts.get(accountId);
    if (account === undefined) {
      account = { nextId: 1, tasks: new Map(), byStatus: new Map() };
      this.#accounts.set(accountId, account);
    }
    return account;
  }

  #task(caller: Caller, taskId: number): TaskRecord {
    const task = Number.isSafeInteger(taskId) ? this.#accounts.get(caller.accountId)?.tasks.get(taskId) : undefined;
    if (task === undefined) throw new EngineError('task_not_found', 'No such task.', 'taskId');
    return task;
  }
}

/** The statuses a claimable task may have (`Todo`, or `InProgress` when stalled). */
const CLAIMABLE_STATUSES: readonly TaskStatus[] = ['Todo', 'InProgress'];

function completed(): EngineError {
  return new EngineError('task_completed', 'The task is already Done.');
}

function indexStatus(account: AccountTasks, task: TaskRecord): void {
  let index = account.byStatus.get(task.status);
  if (index === undefined) {
    index = createSortedMap<number, TaskRecord>();
    account.byStatus.set(task.status, index);
  }
  index.set(task.id, task);
}
