import type {
  ApiOperationId,
  ControlOperationId,
  OperationBody,
  OperationHeaders,
  OperationId,
  OperationPathParams,
  OperationQuery,
} from '@leasehold/protocol';
import type { ServerControl } from '../control/server-control.js';
import type { Credential } from '../engine/index.js';
import type { MaybePromise, Operations, Store } from '../store/operations.js';
import type { HandlerResult } from './answer.js';

/** An operation's validated inputs, typed from the spec by its operationId (openapi-fetch's way). */
export interface OperationInput<Id extends OperationId> {
  readonly path: OperationPathParams<Id>;
  readonly query: OperationQuery<Id>;
  readonly headers: OperationHeaders<Id>;
  readonly body: OperationBody<Id>;
}

/** What an API handler gets besides the store's operations: the caller and the typed inputs. */
export interface HandlerContext<Id extends ApiOperationId> {
  /** The authenticated caller. */
  readonly credential: Credential;
  /** Path, query, headers and body, validated and typed by the operation. */
  readonly input: OperationInput<Id>;
  /** The `Leasehold-Session` request header, when sent. */
  readonly session: string | undefined;
}

/** One API operation: runs inside the store's unit of work over `ops`. */
export type ApiHandler<Id extends ApiOperationId> = (ops: Operations, context: HandlerContext<Id>) => MaybePromise<HandlerResult>;

/** A handler for every API operation of the spec: a missing or misspelled one fails to compile. */
export type ApiHandlers = { readonly [Id in ApiOperationId]: ApiHandler<Id> };

/** One `/_control` operation, over the server's levers. */
export type ControlHandler<Id extends ControlOperationId> = (control: ServerControl<Store>, input: OperationInput<Id>) => MaybePromise<HandlerResult>;

/** A handler for every test-control operation of the spec. */
export type ControlHandlers = { readonly [Id in ControlOperationId]: ControlHandler<Id> };
