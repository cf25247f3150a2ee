/**
 * The browser entry (the `browser` export condition): the reference server over the memory store
 * with Web APIs only (Web Crypto, `TextEncoder`, `fetch` types), for a page or a service worker
 * (`@leasehold/msw`'s `setupWorker`). What needs Node (`listen` over `node:http`, keys files, the
 * PostgreSQL and PGlite stores, metrics) is in the Node entry only.
 */
export * from './portable.js';
/** The bundled OpenAPI document the reference server implements (both entries; not in portable.ts, see there). */
export { openapiDocument } from './generated/openapi-document.js';
