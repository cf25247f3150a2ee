import type { components } from '@leasehold/protocol';
import { toUtc } from '../../engine/index.js';
import { callerOf, type Handler, type HandlerContext } from '../handler.js';

type Schemas = components['schemas'];

function queueOf(ctx: HandlerContext) {
  return { credential: callerOf(ctx), spool: ctx.input.path.spool as string, queue: ctx.input.path.queue as string };
}

function leaseOf(ctx: HandlerContext) {
  return { credential: callerOf(ctx), spool: ctx.input.path.spool as string, lease: ctx.input.headers['Spooler-Lease'] as string };
}

/** `Spooler-Lease-Expires-At` and `Spooler-Lease-Timeout`, both absent for a lease that never expires. */
function expiryHeaders(expiresAt: number | null, leaseSeconds: number | null): Record<string, string> {
  if (expiresAt === null || leaseSeconds === null) return {};
  return {
    'Spooler-Lease-Expires-At': toUtc(expiresAt),
    'Spooler-Lease-Timeout': String(leaseSeconds),
  };
}

/** Handlers of the spool operations. */
export const spoolHandlers: Record<string, Handler> = {
  createSpool: (ctx) => {
    const body = ctx.input.body as Schemas['CreateSpoolRequest'];
    return { status: 201, body: ctx.engine.spools.createSpool({ credential: callerOf(ctx), name: body.name }) };
  },

  putQueue: (ctx) => {
    const body = ctx.input.body as Schemas['PutQueueRequest'];
    const { queue, created } = ctx.engine.spools.putQueue({ ...queueOf(ctx), leaseTimeoutSeconds: body.leaseTimeoutSeconds });
    return { status: created ? 201 : 200, body: queue };
  },

  sendMessage: (ctx) => {
    const body = ctx.input.body as Schemas['SendMessageRequest'];
    return { status: 201, body: ctx.engine.spools.send({ ...queueOf(ctx), body: body.body, delaySeconds: body.delaySeconds }) };
  },

  receiveMessage: (ctx) => {
    const received = ctx.engine.spools.receive({ ...queueOf(ctx), holderSession: ctx.session });
    if (!received) return { status: 204 };
    return {
      status: 200,
      body: received.message,
      headers: { 'Spooler-Lease': received.lease, ...expiryHeaders(received.expiresAt, received.leaseSeconds) },
    };
  },

  renewSpoolLease: (ctx) => {
    const state = ctx.engine.spools.renew(leaseOf(ctx));
    return { status: 204, headers: expiryHeaders(state.expiresAt, state.leaseSeconds) };
  },

  ackMessage: (ctx) => {
    ctx.engine.spools.ack(leaseOf(ctx));
    return { status: 204 };
  },

  nackMessage: (ctx) => {
    const body = (ctx.input.body ?? {}) as Schemas['NackMessageRequest'];
    ctx.engine.spools.nack({ ...leaseOf(ctx), delaySeconds: body.delaySeconds });
    return { status: 204 };
  },

  discardMessage: (ctx) => {
    ctx.engine.spools.discard({ credential: callerOf(ctx), spool: ctx.input.path.spool as string, handle: ctx.input.path.handle as string });
    return { status: 204 };
  },
};
