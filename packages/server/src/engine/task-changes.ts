import { EngineError } from './errors.js';
import type { TaskStatus } from './task-record.js';
import { requireString } from './validation.js';

/** The fields `update` may change. */
export interface TaskChanges {
  status?: TaskStatus;
  title?: string;
  description?: string;
}

const PATCH_STATUSES: ReadonlySet<string> = new Set(['Todo', 'InProgress', 'Blocked']);

/** The changes of a PATCH, validated: a known status other than `Done`, a title, a description. */
export function validateChanges(changes: TaskChanges): TaskChanges {
  const out: TaskChanges = {};
  if (typeof changes !== 'object' || changes === null) throw new EngineError('invalid_request', 'Send the fields to change.');
  if (changes.status !== undefined) {
    if (changes.status === 'Done') {
      throw new EngineError('invalid_transition', 'Move a task to Done by completing it, not by PATCH.', 'status');
    }
    if (!PATCH_STATUSES.has(changes.status)) {
      throw new EngineError('invalid_request', 'status must be Todo, InProgress or Blocked.', 'status');
    }
    out.status = changes.status;
  }
  if (changes.title !== undefined) out.title = requireString(changes.title, 1, 500, 'title');
  if (changes.description !== undefined) out.description = requireString(changes.description, 0, 20000, 'description');
  if (Object.keys(out).length === 0) throw new EngineError('invalid_request', 'Send at least one field to change.');
  return out;
}
