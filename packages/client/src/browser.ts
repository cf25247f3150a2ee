/**
 * `@leasehold/client` in the browser (the `browser` export condition): the surface of the Node
 * entry (`index.ts`) less `FileIdempotencyStore`, with a fetch-only `Leasehold` — no undici, no
 * `node:` import. Its typings are the Node entry's (the one extra name fails to bundle).
 */

/** The client (fetch only; its named types as `Leasehold.<Name>`). */
export { Leasehold } from './client/leasehold-browser.js';
/** Everything both entries export (handles, errors, options, the in-memory store, `Wire`). */
export * from './surface.js';
