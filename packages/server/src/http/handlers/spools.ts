import { toUtc } from '../../engine/index.js';
import type { ApiHandlers, HandlerContext } from '../handler.js';
import { mapMaybe } from '../maybe.js';

/** `Spooler-Lease-Expires-At` and `Spooler-Lease-Timeout`, both absent for a lease that never expires. */
function expiryHeaders(expiresAt: number | null, leaseSeconds: number | null): Record<string, string> {
  if (expiresAt === null || leaseSeconds === null) return {};
  return { 'Spooler-Lease-Expires-At': toUtc(expiresAt), 'Spooler-Lease-Timeout': String(leaseSeconds) };
}

/** The lease a settle names: the caller, the spool and the `Spooler-Lease` header. */
function leaseOf(ctx: HandlerContext<'renewSpoolLease' | 'ackMessage' | 'nackMessage'>) {
  return { credential: ctx.credential, spool: ctx.input.path.spool, lease: ctx.input.headers['Spooler-Lease'] };
}

const NO_CONTENT = { status: 204 } as const;

/** Handlers of the spool operations. */
export const spoolHandlers = {
  createSpool: (ops, { credential, input: { body } }) =>
    mapMaybe(ops.spools.createSpool({ credential, name: body.name }), (spool) => ({ status: 201, body: spool })),

  putQueue: (ops, { credential, input: { path, body } }) =>
    mapMaybe(
      ops.spools.putQueue({ credential, spool: path.spool, queue: path.queue, leaseTimeoutSeconds: body.leaseTimeoutSeconds }),
      ({ queue, created }) => ({ status: created ? 201 : 200, body: queue }),
    ),

  sendMessage: (ops, { credential, input: { path, body } }) =>
    mapMaybe(
      ops.spools.send({ credential, spool: path.spool, queue: path.queue, body: body.body, delaySeconds: body.delaySeconds }),
      (message) => ({ status: 201, body: message }),
    ),

  receiveMessage: (ops, { credential, session, input: { path } }) =>
    mapMaybe(ops.spools.receive({ credential, spool: path.spool, queue: path.queue, holderSession: session }), (received) =>
      received ?
        {
          status: 200,
          body: received.message,
          headers: { 'Spooler-Lease': received.lease, ...expiryHeaders(received.expiresAt, received.leaseSeconds) },
        }
      : NO_CONTENT,
    ),

  renewSpoolLease: (ops, ctx) =>
    mapMaybe(ops.spools.renew(leaseOf(ctx)), (state) => ({ status: 204, headers: expiryHeaders(state.expiresAt, state.leaseSeconds) })),

  ackMessage: (ops, ctx) => mapMaybe(ops.spools.ack(leaseOf(ctx)), () => NO_CONTENT),

  nackMessage: (ops, ctx) => mapMaybe(ops.spools.nack({ ...leaseOf(ctx), delaySeconds: ctx.input.body?.delaySeconds }), () => NO_CONTENT),

  discardMessage: (ops, { credential, input: { path } }) =>
    mapMaybe(ops.spools.discard({ credential, spool: path.spool, handle: path.handle }), () => NO_CONTENT),
} satisfies Partial<ApiHandlers>;
