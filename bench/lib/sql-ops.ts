/**
 * The API operations the SQL benchmarks run, as `ApiCall`s for `storeCaller` (operation id,
 * path and body for the fingerprint, and the `ops` call the handler makes), with the SDK's
 * habit of a fresh `Idempotency-Key` on every operation that takes one.
 */
import type { Claim, HeartbeatResponse, Message, ReceivedMessage } from '../../packages/server/src/engine/index.js';
import { RUN_ID, SPACE_ID, claimsPath } from './fixtures.js';
import type { ApiCall, StoreCaller } from './store-calls.js';

/** What the loops keep of an acquired claim. */
export interface HeldToken {
  key: string;
  claimId: string;
  token: string;
}

/** `acquireSpaceClaim` of `key` for `leaseSeconds`. */
export function acquireCall(key: string, leaseSeconds = 600, holderSession = 'bench'): ApiCall<Claim> {
  const body = { key, scopeId: RUN_ID, holder: 'bench', holderSession, leaseSeconds };
  return {
    operationId: 'acquireSpaceClaim',
    path: claimsPath(),
    body,
    idempotent: true,
    status: 201,
    run: (ops, credential) => ops.claims.acquire({ credential, spaceId: SPACE_ID, ...body }),
  };
}

/** `renewSpaceClaim` of a held claim. */
export function renewCall(claim: HeldToken, idempotent: boolean, leaseSeconds = 600): ApiCall<Claim> {
  const body = { token: claim.token, leaseSeconds };
  return {
    operationId: 'renewSpaceClaim',
    path: claimsPath(claim.key, 'renew'),
    body,
    idempotent,
    run: (ops, credential) => ops.claims.renew({ credential, spaceId: SPACE_ID, key: claim.key, ...body }),
  };
}

/** `releaseSpaceClaim` of a held claim. */
export function releaseCall(claim: HeldToken): ApiCall<unknown> {
  const body = { token: claim.token };
  return {
    operationId: 'releaseSpaceClaim',
    path: claimsPath(claim.key, 'release'),
    body,
    idempotent: true,
    run: (ops, credential) => ops.claims.release({ credential, spaceId: SPACE_ID, key: claim.key, ...body }),
  };
}

/** `heartbeatClaims` of one holder session (as the SDK's scheduler sends it). */
export function heartbeatCall(holderSession: string, ttl = 600): ApiCall<HeartbeatResponse> {
  const body = { ttl, holderSession };
  return {
    operationId: 'heartbeatClaims',
    path: '/v1/claims/heartbeat',
    body,
    idempotent: true,
    run: (ops, credential) => ops.heartbeat({ credential, ...body }),
  };
}

/** `createSpool` (set-up). */
export function createSpoolCall(name: string): ApiCall<unknown> {
  return {
    operationId: 'createSpool',
    path: '/v1/spools',
    body: { name },
    idempotent: true,
    status: 201,
    run: (ops, credential) => ops.spools.createSpool({ credential, name }),
  };
}

/** `putQueue` with a 60 s lease timeout (set-up). */
export function putQueueCall(spool: string, queue: string): ApiCall<unknown> {
  return {
    operationId: 'putQueue',
    path: `/v1/spools/${spool}/queues/${queue}`,
    body: { leaseTimeoutSeconds: 60 },
    idempotent: true,
    run: (ops, credential) => ops.spools.putQueue({ credential, spool, queue, leaseTimeoutSeconds: 60 }),
  };
}

/** `sendMessage` to `spool`/`queue`. */
export function sendCall(spool: string, queue: string, n: number): ApiCall<Message> {
  const body = { body: { n } };
  return {
    operationId: 'sendMessage',
    path: `/v1/spools/${spool}/queues/${queue}/messages`,
    body,
    idempotent: true,
    status: 201,
    run: (ops, credential) => ops.spools.send({ credential, spool, queue, body: body.body }),
  };
}

/** `receiveMessage` from `spool`/`queue` (takes no key). */
export function receiveCall(spool: string, queue: string): ApiCall<ReceivedMessage | null> {
  return {
    operationId: 'receiveMessage',
    path: `/v1/spools/${spool}/queues/${queue}/messages:receive`,
    body: {},
    idempotent: false,
    run: (ops, credential) => ops.spools.receive({ credential, spool, queue, holderSession: 'bench' }),
  };
}

/** `ackMessage` of a received message's lease. */
export function ackCall(spool: string, lease: string): ApiCall<void> {
  return {
    operationId: 'ackMessage',
    path: `/v1/spools/${spool}/messages:ack`,
    body: { lease },
    idempotent: true,
    status: 204,
    run: (ops, credential) => ops.spools.ack({ credential, spool, lease }),
  };
}

/** Acquire `key` and keep its token. */
export async function acquireHeld(caller: StoreCaller, key: string, leaseSeconds = 600, holderSession = 'bench'): Promise<HeldToken> {
  const claim = JSON.parse((await caller.call(acquireCall(key, leaseSeconds, holderSession))).body as string) as Claim;
  if (claim.status !== 'held' || claim.token === undefined) throw new Error(`acquire ${key}: ${claim.status}`);
  return { key, claimId: claim.claimId, token: claim.token };
}

/** Send one message, receive one, ack it (`false` when another worker took the message first). */
export async function sendReceiveAck(caller: StoreCaller, spool: string, queue: string, n: number): Promise<boolean> {
  await caller.call(sendCall(spool, queue, n));
  const got = await caller.call(receiveCall(spool, queue));
  if (got.body === undefined || got.status === 204) return false;
  // The answer is the engine's ReceivedMessage (the pipeline would move `lease` into a header).
  const received = JSON.parse(got.body) as ReceivedMessage;
  await caller.call(ackCall(spool, received.lease));
  return true;
}
