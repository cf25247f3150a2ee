import { operationMetadata } from './generated/operations.js';
import type { OperationMeta } from './operation-meta.js';

export { operationMetadata };

/** Every operationId of the spec (`heartbeatClaims`, `acquireSpaceClaim`, … and the `/_control` ones). */
export type OperationId = keyof typeof operationMetadata;

/** The operationIds of the test controls under `/_control`. */
export type ControlOperationId = {
  [K in OperationId]: (typeof operationMetadata)[K]['control'] extends true ? K : never;
}[OperationId];

/** The operationIds of the API proper (everything but the test controls). */
export type ApiOperationId = Exclude<OperationId, ControlOperationId>;

/**
 * Every operation's metadata with its id, in document order.
 * @example
 * operationList.filter((op) => op.idempotencyKey === 'required').map((op) => op.operationId);
 */
export const operationList: ReadonlyArray<OperationMeta & { readonly operationId: OperationId }> = Object.freeze(
  (Object.keys(operationMetadata) as OperationId[]).map((operationId) => ({ operationId, ...operationMetadata[operationId] })),
);

/** True when `value` names an operation of the spec. */
export function isOperationId(value: string): value is OperationId {
  return Object.prototype.hasOwnProperty.call(operationMetadata, value);
}
