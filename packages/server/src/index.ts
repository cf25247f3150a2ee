/**
 * The Node entry: everything the browser entry exports (`portable.ts`), and what needs Node —
 * `listen` over `node:http`, keys files, the PostgreSQL and PGlite stores, Prometheus metrics.
 */
export * from './portable.js';
/** The bundled OpenAPI document the reference server implements (both entries; not in portable.ts, see there). */
export { openapiDocument } from './generated/openapi-document.js';
/** Prometheus metrics of a server (its own registry; docs/operating.md names them). */
export { ServerMetrics, type ServerMetricsOptions } from './metrics/server-metrics.js';
/** What sees every answer of a server (metrics, request logs). */
export type { RequestObserver } from './http/observer.js';
/** Serves a server over `node:http` (the one way to listen). */
export { listen, type ClosedListener, type NodeListener, type PlainApp } from './adapters/node-http/listen.js';
/** Reads a keys file for the CLI. */
export { loadKeysFile } from './adapters/cli/keys-file.js';
/** Stores: PostgreSQL and embedded PGlite beside memory, opened from a `--store` value. */
export { SqlStore, migrateStore, openStore, type OpenStoreOptions } from './store/index.js';
