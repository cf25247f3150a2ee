/** Stateful MSW handlers over the Leasehold reference server. */
export {
  createLeaseholdHandlers,
  type LeaseholdHandlers,
  type LeaseholdHandlersOptions,
} from './create-handlers.js';
/** The reference server a mock answers with, built for tests (manual clock). */
export { createLeaseholdMockServer, type LeaseholdMockServerOptions, type ServerOrOptions } from './mock-server.js';
/** Fault, lease and clock levers. */
export {
  LeaseholdScenario,
  leaseholdScenario,
  type FailNextOptions,
  type FaultTarget,
  type TimesOption,
} from './scenario.js';
export type { LeaseKind } from './lease-watch.js';
export type { LeaseholdOperationId } from './operation-id.js';
export type { Duration } from '@leasehold/protocol';
/** Typed one-off overrides, inferred from the spec. */
export {
  createLeaseholdHttp,
  leaseholdHttp,
  type LeaseholdApiPath,
  type LeaseholdHandlerFactory,
  type LeaseholdHttp,
  type LeaseholdHttpOptions,
  type LeaseholdMethod,
  type LeaseholdOperation,
  type LeaseholdPath,
  type LeaseholdPathParams,
  type LeaseholdRequestBody,
  type LeaseholdResolver,
  type LeaseholdResponseBody,
} from './typed-http.js';
export { leaseholdError, type LeaseholdErrorEnvelope, type LeaseholdErrorOptions } from './error-response.js';
/** The reference server's types, re-exported so tests need no direct dependency on it. */
export type { Fault, FaultRule, LeaseholdServer, LeaseholdServerOptions } from '@leasehold/server/portable';
/** Wire types of the Leasehold API. */
export type { paths, components, operations } from '@leasehold/protocol';
