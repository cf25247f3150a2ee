import type { CallOptions } from '../resources/call-options.js';
import type { Task } from '../resources/wire-types.js';
import { AttemptsExhaustedError } from './attempts-exhausted-error.js';
import type { TaskWithEtag } from './task-types.js';
import type { TaskOps } from './work-context.js';

/** The note `tasks.work` leaves on a task it gives up on. */
export function givingUpNote(task: Task, maxAttempts: number): string {
  const last = task.lastClaim;
  const how = last === null ? '' : `; the last claim ${last.outcome}${last.endedUtc === null ? '' : ` at ${last.endedUtc}`}`;
  return `tasks.work gave up after ${task.attempts} attempts (maxAttempts ${maxAttempts})${how}. Blocked until an operator requeues it.`;
}

/**
 * `maxAttempts` reached: when the unclaimed, unfinished task read in `read` was already tried
 * `maxAttempts` times, write why (a note), move it to `Blocked` — both guarded by its ETag, so a
 * worker that claims it meanwhile wins and nothing is written — and throw `AttemptsExhaustedError`.
 * Answers when the task may still be tried.
 */
export async function giveUpIfExhausted(tasks: TaskOps, read: TaskWithEtag, maxAttempts: number | undefined, options: CallOptions): Promise<void> {
  const { task } = read;
  if (maxAttempts === undefined || task.attempts < maxAttempts || task.claim !== null || task.status === 'Done') return;
  if (task.status !== 'Blocked') {
    const { etag } = await tasks.addNote(task.id, givingUpNote(task, maxAttempts), { etag: read.etag, ...options });
    await tasks.update(task.id, { status: 'Blocked' }, { etag, ...options });
  }
  throw new AttemptsExhaustedError(task.id, task.attempts, maxAttempts);
}
