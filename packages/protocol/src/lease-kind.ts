import type { OperationId } from './operations.js';

/** What a lease guards: a key of a space, a task, or a spool message. */
export type LeaseKind = 'space' | 'task' | 'spool';

/** Every lease kind. */
export const LEASE_KINDS: readonly LeaseKind[] = Object.freeze(['space', 'task', 'spool']);

/**
 * The operations that grant a fresh lease, the kind each grants and the status of a grant
 * (a queued space claim, 202, is no grant yet).
 */
export const leaseGrants: Readonly<Partial<Record<OperationId, { readonly kind: LeaseKind; readonly status: number }>>> = Object.freeze({
  acquireSpaceClaim: { kind: 'space', status: 201 },
  claimTask: { kind: 'task', status: 200 },
  receiveMessage: { kind: 'spool', status: 200 },
});
