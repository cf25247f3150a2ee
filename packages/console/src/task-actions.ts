import { ApiError, newIdempotencyKey, type Api, type Schemas } from './api.js';

/** What an operator can do to a task from the console (both need the key's `tasks:admin`). */
export type TaskAction = 'release' | 'requeue';

/** Each action: its button, its path under `/v1/tasks/{taskId}`, and what the notice says once it is done. */
export const TASK_ACTIONS: Readonly<Record<TaskAction, { label: string; path: string; done: string }>> = {
  // The holder's own release (releaseTaskClaim) needs the claim's token, which no read shows:
  // an operator ends the claim without it (revokeTaskClaim); the task is claimable at once.
  release: { label: 'Release claim', path: 'claim/revoke', done: 'claim released' },
  requeue: { label: 'Requeue', path: 'requeue', done: 'requeued' },
};

/**
 * Run `action` on a task: read it for its current `ETag`, then send the write with that
 * `If-Match` and a fresh `Idempotency-Key`. Answers the task as it is now; throws the `ApiError`.
 */
export async function runTaskAction(api: Api, taskId: number, action: TaskAction): Promise<Schemas['Task']> {
  const { headers } = await api.json<Schemas['Task']>(`/v1/tasks/${taskId}`);
  const etag = headers.get('etag') ?? '';
  const { body } = await api.json<Schemas['Task']>(`/v1/tasks/${taskId}/${TASK_ACTIONS[action].path}`, {
    method: 'POST',
    headers: { 'if-match': etag, 'idempotency-key': newIdempotencyKey() },
  });
  return body;
}

/** Whether a failure says the key may not run the operator's actions at all (not just on this task). */
export function lacksAdmin(error: unknown): error is ApiError {
  return error instanceof ApiError && error.status === 403 && error.code === 'permission_denied';
}
