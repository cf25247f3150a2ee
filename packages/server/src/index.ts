/** The reference server (a Fetch app over a store) and its options. */
export { LeaseholdServer, createLeaseholdServer, type EngineOf, type LeaseholdServerOptions, type StaticFile } from './leasehold-server.js';
/** The in-process test levers (`server.control`). */
export { ServerControl, type Lever } from './control/server-control.js';
/** Fault rules, as the spec's `FaultRule` and `Fault` schemas. */
export { InvalidFaultRuleError, normalizeFaultRule, type Fault, type FaultRule } from './http/faults.js';
/** Prometheus metrics of a server (its own registry; docs/operating.md names them). */
export { ServerMetrics, type ServerMetricsOptions } from './metrics/server-metrics.js';
/** What sees every answer of a server (metrics, request logs). */
export type { RequestObserver } from './http/observer.js';
/** The server's routing: which operation a method and API path name (for adapters). */
export { operationAt } from './http/router.js';
/** Plain request/response values, for adapters (MSW, undici dispatcher). */
export type { PlainRequest, PlainResponse } from './http/plain.js';
/** Serves a server over `node:http` (the one way to listen). */
export { listen, type NodeListener, type PlainApp } from './adapters/node-http/listen.js';
/** Reads a keys file for the CLI. */
export { loadKeysFile } from './adapters/cli/keys-file.js';
/** Stores: memory (default), PostgreSQL and embedded PGlite, opened from a `--store` value. */
export {
  MemoryStore,
  SqlStore,
  StoreOpenError,
  StoreUnavailableError,
  migrateStore,
  openStore,
  type OpenStoreOptions,
  type Store,
  type StoreKind,
} from './store/index.js';
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
