/** The reference server and its options. */
export { LeaseholdServer, createLeaseholdServer, type LeaseholdServerOptions } from './leasehold-server.js';
/** The in-process test levers (`server.control`). */
export { ServerControl } from './control.js';
/** Fault rules, as the spec's `FaultRule` and `Fault` schemas. */
export type { Fault, FaultRule } from './http/faults.js';
/** The server's routing: which operation a method and API path name (for adapters). */
export { operationAt } from './http/router.js';
/** Plain request/response values, for adapters (MSW, undici dispatcher). */
export type { PlainRequest, PlainResponse } from './http/plain.js';
/** Serves a server over `node:http`. */
export { listen, type NodeListener } from './adapters/node-http.js';
/** Reads a keys file for the CLI. */
export { loadKeysFile } from './keys-file.js';
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
/** The bundled OpenAPI document the reference server implements. */
export { openapiDocument } from './generated/openapi-document.js';
