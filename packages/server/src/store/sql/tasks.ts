import {
  EngineError,
  MAX_NOTES_PER_TASK,
  TASK_LEASE_SECONDS,
  checkIfMatch,
  taskEtag,
  toUtc,
  validateTaskToken,
  type Caller,
  type Task,
  type TaskClaim,
} from '../../engine/index.js';
import { newClaimId } from '../../engine/lease-tokens.js';
import { randomBase62, randomUuidV4 } from '../../engine/random.js';
import { validateChanges } from '../../engine/task-changes.js';
import { requireString } from '../../engine/validation.js';
import type { TaskOperations } from '../operations.js';
import type { SqlSession } from './driver.js';
import { endAttempt, revokeTaskLease, startAttempt } from './task-attempts.js';
import { taskNotFound, taskView, type TaskRow } from './task-view.js';
import { TOMBSTONE_MS, digest, jsonText, one, type UnitContext } from './sql-support.js';


interface ClaimLease {
  lease_id: number;
  claim_id: string;
  status: string;
  fence: number;
  expires_at: number;
  ended_at: number | null;
}

/** A task's live claim at `now` (the task's row lock is held), or `undefined`. */
interface Guard {
  task: TaskRow;
  live: ClaimLease | undefined;
}

/**
 * Tasks in SQL: the engine's validation and answers; the task row is the lock (`FOR UPDATE`),
 * and every write is a compare-and-set on its version (the ETag), so a stale If-Match never writes.
 */
export function sqlTasks(unit: UnitContext): Omit<TaskOperations, 'list'> {
  const { tx, random } = unit;

  /** Lock the task, find its live claim: the engine's `#task` and 404 for other accounts. */
  async function lockTask(caller: Caller, taskId: number): Promise<Guard> {
    if (!Number.isSafeInteger(taskId)) throw taskNotFound();
    const { rows } = await tx.query<TaskRow & { live_claim: ClaimLease | null }>(
      `SELECT t.task_id, t.title, t.description, t.status, t.version, t.result, t.created_at, t.updated_at, t.completed_at,
              c.now, (SELECT json_build_object('lease_id', l.lease_id, 'claim_id', l.claim_id, 'status', l.status,
                        'fence', l.fence, 'expires_at', l.expires_at, 'ended_at', l.ended_at)
                        FROM leasehold.leases l
                       WHERE l.kind = 'task' AND l.account_id = t.account_id AND l.task_id = t.task_id
                         AND l.status = 'held' AND l.expires_at > c.now LIMIT 1) AS live_claim
         FROM (SELECT leasehold.now_ms() AS now) c CROSS JOIN leasehold.tasks t
        WHERE t.account_id = $1 AND t.task_id = $2 FOR UPDATE OF t`,
      [caller.accountId, taskId],
    );
    const row = rows[0];
    if (row === undefined) throw taskNotFound();
    return { task: row, live: row.live_claim ?? undefined };
  }

  /** The engine's `matchTaskClaim`: the live claim, else `lease_expired` / `claim_not_held`. */
  async function matchClaim(caller: Caller, guard: Guard, token: string, param: string): Promise<ClaimLease> {
    const { rows } = await tx.query<ClaimLease>(
      `SELECT lease_id, claim_id, status, fence, expires_at, ended_at FROM leasehold.leases
        WHERE kind = 'task' AND account_id = $1 AND task_id = $2 AND token_hash = $3`,
      [caller.accountId, guard.task.task_id, digest(token)],
    );
    const now = guard.task.now;
    const lease = rows[0];
    if (lease !== undefined && guard.live !== undefined && lease.lease_id === guard.live.lease_id) return guard.live;
    if (lease !== undefined) {
      const expired = lease.status === 'held' && lease.expires_at <= now;
      const endedAt = expired ? lease.expires_at : lease.ended_at;
      if ((expired || lease.status === 'lost') && endedAt !== null && endedAt + TOMBSTONE_MS > now) {
        throw new EngineError('lease_expired', 'The task claim expired; read the task and claim it again.', param);
      }
    }
    throw new EngineError('claim_not_held', 'This token does not hold the task claim.', param);
  }

  /** The engine's `#protected`: token shape, task, If-Match, Done, then the claim guard. */
  async function protectedWrite(
    params: { credential: Caller; taskId: number; ifMatch: string | null | undefined; claimToken?: string | undefined },
    onDone?: () => never,
  ): Promise<{ guard: Guard; lease: ClaimLease | null }> {
    const token = params.claimToken === undefined ? undefined : validateTaskToken(params.claimToken, 'X-Task-Claim');
    const guard = await lockTask(params.credential, params.taskId);
    checkIfMatch({ id: guard.task.task_id, version: guard.task.version }, params.ifMatch);
    if (guard.task.status === 'Done' && onDone !== undefined) onDone();
    if (guard.live === undefined) {
      if (token !== undefined) await matchClaim(params.credential, guard, token, 'X-Task-Claim');
      return { guard, lease: null };
    }
    if (token === undefined) {
      throw new EngineError('claim_required', 'The task is claimed: send the live claim token in X-Task-Claim.', 'X-Task-Claim');
    }
    return { guard, lease: await matchClaim(params.credential, guard, token, 'X-Task-Claim') };
  }

  /** Compare-and-set the version (the ETag), changing what `set` says; answers the new version. */
  async function bump(caller: Caller, guard: Guard, set = '', values: unknown[] = []): Promise<void> {
    const { rowCount } = await tx.query(
      `UPDATE leasehold.tasks SET version = version + 1, updated_at = $4${set}
        WHERE account_id = $1 AND task_id = $2 AND version = $3`,
      [caller.accountId, guard.task.task_id, guard.task.version, guard.task.now, ...values],
    );
    if (rowCount !== 1) throw new Error('task version changed under its row lock');
  }

  async function addNote(caller: Caller, guard: Guard, text: string, claimId: string | null): Promise<void> {
    await tx.query(
      'INSERT INTO leasehold.task_notes (account_id, task_id, note_id, body, created_at, claim_id) VALUES ($1, $2, $3, $4, $5, $6)',
      [caller.accountId, guard.task.task_id, `note_${randomBase62(random, 12)}`, text, guard.task.now, claimId],
    );
  }

  async function endClaim(lease: ClaimLease, now: number): Promise<void> {
    await tx.query("UPDATE leasehold.leases SET status = 'released', ended_at = $2 WHERE lease_id = $1", [lease.lease_id, now]);
  }

  const result = async (caller: Caller, taskId: number) => {
    const task = await taskView(tx, caller.accountId, taskId);
    return { task, etag: taskEtag(task) };
  };

  return {
    async create(params) {
      const title = requireString(params.title, 1, 500, 'title');
      const description = params.description === undefined ? '' : requireString(params.description, 0, 20000, 'description');
      const { rows } = await tx.query<{ task_id: number }>(
        `WITH c AS (SELECT leasehold.now_ms() AS now),
         a AS (UPDATE leasehold.accounts SET next_task_id = next_task_id + 1 WHERE account_id = $1 RETURNING next_task_id - 1 AS id)
         INSERT INTO leasehold.tasks (account_id, task_id, title, description, status, version, created_at, updated_at)
         SELECT $1, a.id, $2, $3, 'Todo', 1, c.now, c.now FROM a, c
         RETURNING task_id`,
        [params.credential.accountId, title, description],
      );
      return result(params.credential, one(rows).task_id);
    },

    async get(params) {
      if (!Number.isSafeInteger(params.taskId)) throw taskNotFound();
      return result(params.credential, params.taskId);
    },

    async claim(params) {
      const guard = await lockTask(params.credential, params.taskId);
      checkIfMatch({ id: guard.task.task_id, version: guard.task.version }, params.ifMatch);
      if (guard.task.status === 'Done') throw completed();
      if (guard.live !== undefined) throw new EngineError('task_claimed', 'Another worker holds a live claim on this task.');
      const now = guard.task.now;
      const claimId = newClaimId(random);
      const token = randomUuidV4(random);
      const { rows } = await tx.query<{ fence: number }>(
        `INSERT INTO leasehold.leases (claim_id, kind, token_hash, account_id, credential_id, holder_session, status, fence,
                                       expires_at, lease_seconds, acquired_at, task_id)
         SELECT $1, 'task', $2, $3, $4, $5, 'held', nextval(a.fence_seq::regclass), $6::bigint + $7::bigint * 1000, $7, $6, $8
           FROM leasehold.accounts a WHERE a.account_id = $3
         RETURNING fence`,
        [claimId, digest(token), params.credential.accountId, params.credential.credentialId, params.holderSession ?? null, now,
          TASK_LEASE_SECONDS, guard.task.task_id],
      );
      // As the engine: a claim keeps the task's ETag (the lease is not the task's version).
      await startAttempt(tx, owner(params.credential, guard), { claimId, holderSession: params.holderSession ?? null, now });
      const claim: TaskClaim = claimView(guard.task.task_id, claimId, one(rows).fence, now + TASK_LEASE_SECONDS * 1000, token);
      return { claim, etag: taskEtag({ id: guard.task.task_id, version: guard.task.version }) };
    },

    async renew(params) {
      const token = validateTaskToken(params.token, 'token');
      const guard = await lockTask(params.credential, params.taskId);
      checkIfMatch({ id: guard.task.task_id, version: guard.task.version }, params.ifMatch);
      const lease = await matchClaim(params.credential, guard, token, 'token');
      const expiresAt = guard.task.now + TASK_LEASE_SECONDS * 1000;
      // A HOT update: `due_at` moves only if the lease would end earlier than it (migration 0013).
      await tx.query('UPDATE leasehold.leases SET expires_at = $2, due_at = least(due_at, $2) WHERE lease_id = $1', [lease.lease_id, expiresAt]);
      const claim = claimView(guard.task.task_id, lease.claim_id, lease.fence, expiresAt);
      return { claim, etag: taskEtag({ id: guard.task.task_id, version: guard.task.version }) };
    },

    async release(params) {
      const token = validateTaskToken(params.token, 'token');
      const guard = await lockTask(params.credential, params.taskId);
      checkIfMatch({ id: guard.task.task_id, version: guard.task.version }, params.ifMatch);
      const lease = await matchClaim(params.credential, guard, token, 'token');
      const now = guard.task.now;
      await endClaim(lease, now);
      await endAttempt(tx, owner(params.credential, guard), lease.claim_id, 'released', now);
      return {
        release: { object: 'task_claim_release', claimId: lease.claim_id, taskId: guard.task.task_id, released: true, releasedUtc: toUtc(now) },
        etag: taskEtag({ id: guard.task.task_id, version: guard.task.version }),
      };
    },

    async addNote(params) {
      const text = requireString(params.text, 1, 20000, 'text');
      const { guard, lease } = await protectedWrite(params);
      await requireNoteRoom(tx, params.credential.accountId, guard.task.task_id);
      await addNote(params.credential, guard, text, lease?.claim_id ?? null);
      await bump(params.credential, guard);
      return result(params.credential, guard.task.task_id);
    },

    async update(params) {
      const changes = validateChanges(params.changes);
      const { guard } = await protectedWrite(params, () => {
        throw new EngineError('invalid_transition', 'A Done task cannot change.', 'status');
      });
      await bump(
        params.credential,
        guard,
        ', status = coalesce($5, status), title = coalesce($6, title), description = coalesce($7, description)',
        [changes.status ?? null, changes.title ?? null, changes.description ?? null],
      );
      return result(params.credential, guard.task.task_id);
    },

    async complete(params) {
      const note = params.note === undefined ? undefined : requireString(params.note, 1, 20000, 'note');
      const { guard, lease } = await protectedWrite(params, () => {
        throw completed();
      });
      const now = guard.task.now;
      if (note !== undefined) await addNote(params.credential, guard, note, lease?.claim_id ?? null);
      if (lease !== null) await endClaim(lease, now);
      if (lease !== null) await endAttempt(tx, owner(params.credential, guard), lease.claim_id, 'completed', now);
      await bump(params.credential, guard, ", status = 'Done', result = $5, completed_at = $4", [jsonText(params.result ?? null)]);
      return result(params.credential, guard.task.task_id);
    },

    async revokeClaim(params) {
      const guard = await lockTask(params.credential, params.taskId);
      checkIfMatch({ id: guard.task.task_id, version: guard.task.version }, params.ifMatch);
      if (guard.task.status === 'Done') throw completed();
      if (guard.live === undefined) throw new EngineError('claim_not_held', 'The task has no live claim to revoke.');
      await revoke(params.credential, guard, guard.live);
      await bump(params.credential, guard);
      return result(params.credential, guard.task.task_id);
    },

    async requeue(params) {
      const guard = await lockTask(params.credential, params.taskId);
      checkIfMatch({ id: guard.task.task_id, version: guard.task.version }, params.ifMatch);
      if (guard.task.status === 'Done') throw completed();
      if (guard.live !== undefined) await revoke(params.credential, guard, guard.live);
      await bump(params.credential, guard, ", status = 'Todo', attempts = 0");
      return result(params.credential, guard.task.task_id);
    },
  };

  /** The engine's `#revoke`: the live lease lost as `revoked`, recorded as the last claim's end. */
  async function revoke(caller: Caller, guard: Guard, live: ClaimLease): Promise<void> {
    await revokeTaskLease(tx, live.lease_id, guard.task.now);
    await endAttempt(tx, owner(caller, guard), live.claim_id, 'revoked', guard.task.now);
  }
}

/** The task a guard locked, as the lifecycle writes name it. */
function owner(caller: Caller, guard: Guard): { accountId: string; taskId: number } {
  return { accountId: caller.accountId, taskId: guard.task.task_id };
}

function claimView(taskId: number, claimId: string, fence: number, expiresAt: number, token?: string): TaskClaim {
  const view: TaskClaim = {
    object: 'task_claim',
    claimId,
    taskId,
    fence,
    expiresUtc: toUtc(expiresAt),
    leaseSeconds: TASK_LEASE_SECONDS,
  };
  if (token !== undefined) view.token = token;
  return view;
}

/** The engine's cap: at most `MAX_NOTES_PER_TASK` notes per task (`plan_limit_exceeded` beyond). */
async function requireNoteRoom(tx: SqlSession, accountId: string, taskId: number): Promise<void> {
  const { rows } = await tx.query<{ full: boolean }>(
    'SELECT count(*) >= $3 AS full FROM leasehold.task_notes WHERE account_id = $1 AND task_id = $2',
    [accountId, taskId, MAX_NOTES_PER_TASK],
  );
  if (one(rows).full) throw new EngineError('plan_limit_exceeded', `A task holds at most ${MAX_NOTES_PER_TASK} notes.`, 'text');
}

function completed(): EngineError {
  return new EngineError('task_completed', 'The task is already Done.');
}
