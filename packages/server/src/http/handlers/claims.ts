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
    mapMaybe(ops.claims.list({ credential, spaceId: path.spaceId, ...query }), (list) => ({
      status: 200,
      body: list,
      // A reader of the seed page, whose curl passes no limit, is told there is more (RFC 8288).
      ...(list.nextCursor === null ? {} : { headers: { Link: nextLink({ prefix: query.prefix, limit: query.limit, cursor: list.nextCursor }) } }),
    })),

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

/** `<?…&cursor=…>; rel="next"`: the next page, relative to the request's URL, keeping its prefix and limit. */
function nextLink(query: { prefix?: string | undefined; limit?: number | undefined; cursor: string }): string {
  const search = new URLSearchParams();
  if (query.prefix !== undefined) search.set('prefix', query.prefix);
  if (query.limit !== undefined) search.set('limit', String(query.limit));
  search.set('cursor', query.cursor);
  return `<?${search.toString()}>; rel="next"`;
}
