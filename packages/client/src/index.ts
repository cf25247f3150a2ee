/**
 * `@leasehold/client` (the Node entry): the deliberate public surface, and nothing else. The
 * client, its options and call options; the lease handles; every error class; the idempotency
 * stores; the logger interface and the version. Every other named type of the surface is
 * `Leasehold.<Name>` (handles, events, option bags), and the wire types are `Wire.<Name>`.
 * `tests/client/api-report.test.ts` keeps `api/client.api.md`, the reviewed report of this
 * surface, equal to what it exports.
 */

/** The client (with its named types as `Leasehold.<Name>`). */
export { Leasehold } from './client/leasehold.js';
/** Everything both entries export (handles, errors, options, the in-memory store, `Wire`). */
export * from './surface.js';
/** The crash-safe idempotency-key store (files; Node only). */
export { FileIdempotencyStore } from './core/idempotency/file-idempotency-store.js';
