import type { ApiOperationId, ControlOperationId } from '@leasehold/protocol';
import type { ServerControl } from '../../control/server-control.js';
import { EngineError, normalizeIdempotencyKey } from '../../engine/index.js';
import type { IdempotencyClaim, OperationOutcome, Store } from '../../store/operations.js';
import { DROPPED, encodeResult, isStorable, type HandlerResult, type StoredAnswer } from '../answer.js';
import type { RequestContext } from '../context.js';
import { errorAnswerOf, isAnswerError } from '../error-answer.js';
import type { ApiHandler, ApiHandlers, ControlHandler, ControlHandlers, HandlerContext, OperationInput } from '../handler.js';
import { mapMaybe } from '../maybe.js';
import { fingerprintOf } from '../request-parts.js';
import type { Step } from './step.js';

/** What the execute step runs operations with. */
export interface ExecuteOptions {
  readonly store: Store;
  readonly control: ServerControl<Store>;
  readonly handlers: ApiHandlers;
  readonly controls: ControlHandlers;
  readonly sleep: (ms: number) => Promise<void>;
}

/**
 * Inside the unit of work: a handler's value is encoded (serialized) there, so on a SQL store an
 * answer that cannot be encoded rolls the write back; a refusal becomes its error answer; a bug
 * is rethrown (nothing committed, 500 at the edge).
 */
function encode(outcome: OperationOutcome<HandlerResult>): StoredAnswer {
  if (outcome.ok) return encodeResult(outcome.value);
  if (isAnswerError(outcome.error)) return errorAnswerOf(outcome.error);
  throw outcome.error;
}

/** The request's idempotency claim: when a caller sends an `Idempotency-Key` the operation takes. */
function idempotencyOf(ctx: RequestContext): IdempotencyClaim | undefined {
  const rawKey = ctx.request.headers['idempotency-key'];
  if (ctx.credential === undefined || rawKey === undefined || ctx.route?.takesIdempotencyKey !== true) return undefined;
  const { path, search } = ctx.target;
  return { key: normalizeIdempotencyKey(rawKey), fingerprint: fingerprintOf(ctx.request, search ? `${path}?${search}` : path ?? '') };
}

/** The unit's answer as the step's: dropped after the commit when a fault says so; a replay says so. */
function answerOf(settled: { answer: StoredAnswer; replayed: boolean }, drop: boolean): StoredAnswer {
  return drop ? DROPPED : settled.replayed ? replayed(settled.answer) : settled.answer;
}

/** `idempotency_in_flight`, as the stores answer it. */
function inFlight(): EngineError {
  return new EngineError('idempotency_in_flight', 'A request with this Idempotency-Key is still running; retry shortly.', 'Idempotency-Key');
}

/** A replayed answer says so. */
function replayed(answer: StoredAnswer): StoredAnswer {
  return { ...answer, headers: { ...answer.headers, 'Idempotent-Replayed': 'true' } };
}

/**
 * The last step: a test control runs over the server's levers; an API operation runs as one
 * `store.execute` unit — idempotency (replay, in flight, reused), the handler, the encoded answer,
 * Stripe's storable rule — then, once the unit has committed (or rolled back), an injected
 * latency and an injected drop: a fault's wait never holds a transaction or a connection, and
 * every store answers it alike (the write is done and visible while the answer waits).
 */
export function execute(options: ExecuteOptions): Step {
  const { store, control, handlers, controls, sleep } = options;
  /** Requests whose answer waits out a latency fault, by credential and key → fingerprint: still in flight for a repeat, as on the memory store. */
  const waiting = new Map<string, string>();
  return (ctx) => {
    const route = ctx.route;
    const input = ctx.input;
    if (route === undefined || input === undefined) throw new Error('execute ran before routing and validation');
    if (route.isControl) {
      const handler = controls[route.operationId as ControlOperationId] as ControlHandler<ControlOperationId>;
      return mapMaybe(handler(control, input as OperationInput<ControlOperationId>), encodeResult);
    }
    const credential = ctx.credential;
    if (credential === undefined) throw new Error('an API operation ran without a credential');
    const handler = handlers[route.operationId as ApiOperationId] as ApiHandler<ApiOperationId>;
    const context: HandlerContext<ApiOperationId> = {
      credential,
      input: input as OperationInput<ApiOperationId>,
      session: ctx.request.headers['leasehold-session'],
    };
    const fault = ctx.fault;
    const latencyMs = fault?.latencyMs ?? 0;
    const drop = fault?.dropResponse === true;
    const idempotency = ctx.request.headers['idempotency-key'] === undefined ? undefined : idempotencyOf(ctx);
    const mark = idempotency === undefined ? undefined : `${credential.credentialId}\n${idempotency.key}`;
    if (mark !== undefined && waiting.get(mark) === idempotency?.fingerprint) throw inFlight();
    const result = store.execute(
      { credential, operationId: route.operationId, idempotency, isStorable },
      (ops) => handler(ops, context),
      encode,
    );
    // The latency is waited after the unit settled (committed, or rolled back): never inside an open transaction.
    if (latencyMs > 0) return Promise.resolve(result).then(async (settled) => {
      if (mark !== undefined) waiting.set(mark, idempotency?.fingerprint ?? '');
      try {
        await sleep(latencyMs);
      } finally {
        if (mark !== undefined) waiting.delete(mark);
      }
      return answerOf(settled, drop);
    });
    if (result instanceof Promise) return result.then((settled) => answerOf(settled, drop));
    return answerOf(result, drop);
  };
}
