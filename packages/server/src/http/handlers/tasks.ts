import type { components } from '@leasehold/protocol';
import { callerOf, type Handler, type HandlerContext } from '../handler.js';

type Schemas = components['schemas'];

function target(ctx: HandlerContext) {
  return {
    credential: callerOf(ctx),
    taskId: ctx.input.path.taskId as number,
    ifMatch: ctx.input.headers['If-Match'] as string | undefined,
  };
}

function guarded(ctx: HandlerContext) {
  return { ...target(ctx), claimToken: ctx.input.headers['X-Task-Claim'] as string | undefined };
}

/** Handlers of the task operations; every answer carries the task's current ETag. */
export const taskHandlers: Record<string, Handler> = {
  createTask: (ctx) => {
    const body = ctx.input.body as Schemas['CreateTaskRequest'];
    const { task, etag } = ctx.engine.tasks.create({ credential: callerOf(ctx), ...body });
    return { status: 201, body: task, headers: { ETag: etag } };
  },

  listTasks: (ctx) => {
    const query = ctx.input.query as { status?: Schemas['TaskStatus']; limit?: number; cursor?: string };
    return { status: 200, body: ctx.engine.tasks.list({ credential: callerOf(ctx), ...query }) };
  },

  getTask: (ctx) => {
    const { task, etag } = ctx.engine.tasks.get({ credential: callerOf(ctx), taskId: ctx.input.path.taskId as number });
    return { status: 200, body: task, headers: { ETag: etag } };
  },

  updateTask: (ctx) => {
    const changes = ctx.input.body as Schemas['UpdateTaskRequest'];
    const { task, etag } = ctx.engine.tasks.update({ ...guarded(ctx), changes });
    return { status: 200, body: task, headers: { ETag: etag } };
  },

  addTaskNote: (ctx) => {
    const body = ctx.input.body as Schemas['AddTaskNoteRequest'];
    const { task, etag } = ctx.engine.tasks.addNote({ ...guarded(ctx), text: body.text });
    return { status: 201, body: task.notes[task.notes.length - 1], headers: { ETag: etag } };
  },

  claimTask: (ctx) => {
    const { claim, etag } = ctx.engine.tasks.claim({ ...target(ctx), holderSession: ctx.session });
    return { status: 200, body: claim, headers: { ETag: etag } };
  },

  renewTaskClaim: (ctx) => {
    const body = ctx.input.body as Schemas['TaskClaimTokenRequest'];
    const { claim, etag } = ctx.engine.tasks.renew({ ...target(ctx), token: body.token });
    return { status: 200, body: claim, headers: { ETag: etag } };
  },

  releaseTaskClaim: (ctx) => {
    const body = ctx.input.body as Schemas['TaskClaimTokenRequest'];
    const { release, etag } = ctx.engine.tasks.release({ ...target(ctx), token: body.token });
    return { status: 200, body: release, headers: { ETag: etag } };
  },

  completeTask: (ctx) => {
    const body = (ctx.input.body ?? {}) as Schemas['CompleteTaskRequest'];
    const { task, etag } = ctx.engine.tasks.complete({ ...guarded(ctx), result: body.result, note: body.note });
    return { status: 200, body: task, headers: { ETag: etag } };
  },
};
