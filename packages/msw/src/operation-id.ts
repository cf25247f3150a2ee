import type { ApiOperationId } from '@leasehold/protocol';

/** An operationId of the Leasehold API (`heartbeatClaims`, `acquireSpaceClaim`, ...); the `/_control` operations, which faults never hit, are left out. */
export type LeaseholdOperationId = ApiOperationId;
