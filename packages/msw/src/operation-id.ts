import type { operations } from './generated/openapi.js';

/** The test-control operations under `/_control`, which faults never hit. */
type ControlOperationId =
  | 'getControlClock'
  | 'advanceControlClock'
  | 'injectControlFault'
  | 'clearControlFaults'
  | 'cancelControlScope'
  | 'discardControlMessage'
  | 'simulatePrimaryChange'
  | 'updateControlAccount'
  | 'updateControlCredential'
  | 'loseControlLease';

/** An operationId of the Leasehold API (`heartbeatClaims`, `acquireSpaceClaim`, ...). */
export type LeaseholdOperationId = Exclude<keyof operations, ControlOperationId>;
