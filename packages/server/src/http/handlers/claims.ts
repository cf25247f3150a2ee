import type { ApiHandlers } from '../handler.js';
import { mapMaybe } from '../maybe.js';

/** Handlers of the space-claim operations and the batch heartbeat. */
export const claimHandlers = {
  heartbeatClaims: (ops, { credential, input: { body } }) =>
    mapMaybe(
      ops.heartbeat({
        credential,
        ttl: body.ttl,
        claimId: body.claimId,
        claimIds: body.claimIds,
        holderSession: body.holderSession,
        details: body.details,
      }),
      (answer) => ({ status: 200, body: answer }),
    ),

  listSpaceClaims: (ops, { credential, input: { path, query } }) =>
    mapMaybe(ops.claims.list({ credential, spaceId: path.spaceId, ...query }), (list) => ({ status: 200, body: list })),

  acquireSpaceClaim: (ops, { credential, input: { path, body } }) =>
    mapMaybe(ops.claims.acquire({ credential, spaceId: path.spaceId, ...body }), (claim) => ({
      status: claim.status === 'queued' ? 202 : 201,
      body: claim,
    })),

  getSpaceClaim: (ops, { credential, input: { path } }) =>
    mapMaybe(ops.claims.get({ credential, spaceId: path.spaceId, key: path.key }), (claim) => ({ status: 200, body: claim })),

  renewSpaceClaim: (ops, { credential, input: { path, body } }) =>
    mapMaybe(
      ops.claims.renew({ credential, spaceId: path.spaceId, key: path.key, token: body.token, leaseSeconds: body.leaseSeconds }),
      (claim) => ({ status: 200, body: claim }),
    ),

  releaseSpaceClaim: (ops, { credential, input: { path, body } }) =>
    mapMaybe(
      ops.claims.release({ credential, spaceId: path.spaceId, key: path.key, token: body.token, observation: body.observation }),
      (released) => ({ status: 200, body: released }),
    ),

  cancelScope: (ops, { credential, input: { path } }) =>
    mapMaybe(ops.claims.cancelScope({ credential, spaceId: path.spaceId, scopeId: path.scopeId }), (cancelled) => ({
      status: 200,
      body: cancelled,
    })),
} satisfies Partial<ApiHandlers>;
