import type { ApiHandlers, HandlerContext } from '../handler.js';
import { mapMaybe } from '../maybe.js';

/** The task writes' target: the caller, the task and its `If-Match`. */
function target(
  ctx: HandlerContext<'updateTask' | 'addTaskNote' | 'claimTask' | 'renewTaskClaim' | 'releaseTaskClaim' | 'completeTask' | 'revokeTaskClaim' | 'requeueTask'>,
) {
  return { credential: ctx.credential, taskId: ctx.input.path.taskId, ifMatch: ctx.input.headers['If-Match'] };
}

/** A protected write's target: also the `X-Task-Claim` token. */
function guarded(ctx: HandlerContext<'updateTask' | 'addTaskNote' | 'completeTask'>) {
  return { ...target(ctx), claimToken: ctx.input.headers['X-Task-Claim'] };
}

/** An answer with the task's current ETag. */
function tagged<T>(status: number, body: T, etag: string) {
  return { status, body, headers: { ETag: etag } };
}

/** Handlers of the task operations; every answer carries the task's current ETag. */
export const taskHandlers = {
  createTask: (ops, { credential, input: { body } }) =>
    mapMaybe(ops.tasks.create({ credential, ...body }), ({ task, etag }) => tagged(201, task, etag)),

  listTasks: (ops, { credential, input: { query } }) => mapMaybe(ops.tasks.list({ credential, ...query }), (list) => ({ status: 200, body: list })),

  getTask: (ops, { credential, input: { path } }) =>
    mapMaybe(ops.tasks.get({ credential, taskId: path.taskId }), ({ task, etag }) => tagged(200, task, etag)),

  updateTask: (ops, ctx) => mapMaybe(ops.tasks.update({ ...guarded(ctx), changes: ctx.input.body }), ({ task, etag }) => tagged(200, task, etag)),

  addTaskNote: (ops, ctx) =>
    mapMaybe(ops.tasks.addNote({ ...guarded(ctx), text: ctx.input.body.text }), ({ task, etag }) =>
      tagged(201, task.notes[task.notes.length - 1], etag),
    ),

  claimTask: (ops, ctx) =>
    mapMaybe(ops.tasks.claim({ ...target(ctx), holderSession: ctx.session }), ({ claim, etag }) => tagged(200, claim, etag)),

  renewTaskClaim: (ops, ctx) =>
    mapMaybe(ops.tasks.renew({ ...target(ctx), token: ctx.input.body.token }), ({ claim, etag }) => tagged(200, claim, etag)),

  releaseTaskClaim: (ops, ctx) =>
    mapMaybe(ops.tasks.release({ ...target(ctx), token: ctx.input.body.token }), ({ release, etag }) => tagged(200, release, etag)),

  revokeTaskClaim: (ops, ctx) => mapMaybe(ops.tasks.revokeClaim(target(ctx)), ({ task, etag }) => tagged(200, task, etag)),

  requeueTask: (ops, ctx) => mapMaybe(ops.tasks.requeue(target(ctx)), ({ task, etag }) => tagged(200, task, etag)),

  completeTask: (ops, ctx) =>
    mapMaybe(ops.tasks.complete({ ...guarded(ctx), result: ctx.input.body?.result, note: ctx.input.body?.note }), ({ task, etag }) =>
      tagged(200, task, etag),
    ),
} satisfies Partial<ApiHandlers>;
