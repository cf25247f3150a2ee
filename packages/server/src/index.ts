/** The reference server and its options. */
export { LeaseholdServer, createLeaseholdServer, type LeaseholdServerOptions } from './leasehold-server.js';
/** The in-process test levers (`server.control`). */
export { ServerControl } from './control.js';
/** Fault rules, as the spec's `FaultRule` and `Fault` schemas. */
export type { Fault, FaultRule } from './http/faults.js';
/** Plain request/response values, for adapters (MSW, undici dispatcher). */
export type { PlainRequest, PlainResponse } from './http/plain.js';
/** Serves a server over `node:http`. */
export { listen, type NodeListener } from './adapters/node-http.js';
/** Reads a keys file for the CLI. */
export { loadKeysFile } from './keys-file.js';
/** The envelope `type` of each error status (for adapters that build error answers). */
export { errorTypeByStatus } from './engine/index.js';
/** Clocks and the key configuration type. */
export { ManualClock, RealClock, DEFAULT_KEYS, type Clock, type KeyConfig } from './engine/index.js';
/** The bundled OpenAPI document the reference server implements. */
export { openapiDocument } from './generated/openapi-document.js';
