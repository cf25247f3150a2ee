import type { components } from '@leasehold/protocol';
import { callerOf, type Handler } from '../handler.js';

type Schemas = components['schemas'];

/** Handlers of the space-claim operations and the batch heartbeat. */
export const claimHandlers: Record<string, Handler> = {
  heartbeatClaims: (ctx) => {
    const body = ctx.input.body as Schemas['HeartbeatRequest'];
    return {
      status: 200,
      body: ctx.engine.heartbeat({
        credential: callerOf(ctx),
        ttl: body.ttl,
        claimId: body.claimId,
        claimIds: body.claimIds,
        holderSession: body.holderSession,
        details: body.details,
      }),
    };
  },

  listSpaceClaims: (ctx) => {
    const query = ctx.input.query as { prefix?: string; limit?: number; cursor?: string };
    const spaceId = ctx.input.path.spaceId as string;
    return { status: 200, body: ctx.engine.claims.list({ credential: callerOf(ctx), spaceId, ...query }) };
  },

  acquireSpaceClaim: (ctx) => {
    const body = ctx.input.body as Schemas['AcquireClaimRequest'];
    const claim = ctx.engine.claims.acquire({
      credential: callerOf(ctx),
      spaceId: ctx.input.path.spaceId as string,
      ...body,
    });
    return { status: claim.status === 'queued' ? 202 : 201, body: claim };
  },

  getSpaceClaim: (ctx) => ({
    status: 200,
    body: ctx.engine.claims.get({
      credential: callerOf(ctx),
      spaceId: ctx.input.path.spaceId as string,
      key: ctx.input.path.key as string,
    }),
  }),

  renewSpaceClaim: (ctx) => {
    const body = ctx.input.body as Schemas['RenewClaimRequest'];
    return {
      status: 200,
      body: ctx.engine.claims.renew({
        credential: callerOf(ctx),
        spaceId: ctx.input.path.spaceId as string,
        key: ctx.input.path.key as string,
        token: body.token,
        leaseSeconds: body.leaseSeconds,
      }),
    };
  },

  releaseSpaceClaim: (ctx) => {
    const body = ctx.input.body as Schemas['ReleaseClaimRequest'];
    return {
      status: 200,
      body: ctx.engine.claims.release({
        credential: callerOf(ctx),
        spaceId: ctx.input.path.spaceId as string,
        key: ctx.input.path.key as string,
        token: body.token,
        observation: body.observation,
      }),
    };
  },

  cancelScope: (ctx) => ({
    status: 200,
    body: ctx.engine.claims.cancelScope({
      credential: callerOf(ctx),
      spaceId: ctx.input.path.spaceId as string,
      scopeId: ctx.input.path.scopeId as string,
    }),
  }),
};
