/**
 * What both entries of `@leasehold/server` export (the Node entry `index.ts` and the browser
 * entry `browser.ts`): the reference server over the memory store — engine, HTTP pipeline,
 * levers — on Web APIs only. One list, so a name means the same thing in both.
 */

/** The reference server (a Fetch app over a store) and its options. */
export { LeaseholdServer, createLeaseholdServer, type EngineOf, type LeaseholdServerOptions, type StaticFile } from './leasehold-server.js';
/** The in-process test levers (`server.control`). */
export { ServerControl, type Lever } from './control/server-control.js';
/** Fault rules, as the spec's `FaultRule` and `Fault` schemas. */
export { InvalidFaultRuleError, normalizeFaultRule, type Fault, type FaultRule } from './http/faults.js';
/** The server's routing: which operation a method and API path name (for adapters). */
export { operationAt } from './http/router.js';
/** Plain request/response values, for adapters (MSW, undici dispatcher). */
export type { PlainRequest, PlainResponse } from './http/plain.js';
/** The memory store and the store interface. */
export { MemoryStore } from './store/memory/memory-store.js';
export type { Store, StoreKind } from './store/operations.js';
/** Typed store failures. */
export { StoreOpenError, StoreUnavailableError } from './store/errors.js';
/** The envelope `type` of each error status (for adapters that build error answers; owned by `@leasehold/protocol`). */
export { errorTypeByStatus, errorStatusByCode, type ErrorCode } from '@leasehold/protocol';
/** The one builder of error bodies (the server, its adapters and `@leasehold/msw` share it; owned by `@leasehold/protocol`). */
export {
  errorDocAnchor,
  errorEnvelope,
  type EnvelopeContext,
  type ErrorDetail,
  type ErrorEnvelope,
  type ErrorFields,
} from '@leasehold/protocol';
/** The mount points a server serves by default (`/` and `/api`). */
export { DEFAULT_BASE_PATHS } from '@leasehold/protocol';
/** Clocks and the key configuration type. */
export { ManualClock, RealClock, DEFAULT_KEYS, type Clock, type KeyConfig } from './engine/index.js';
// The bundled OpenAPI document (`openapiDocument`) is exported by both entries themselves, not
// from here: `@leasehold/msw` bundles this list, and a re-export here made its bundle load the
// ~280 KB document at import (the server loads it on the first `/openapi.json` request).
