import { createRequire } from 'node:module';
import type PgModule from 'pg';

const nodeRequire = createRequire(import.meta.url);

/**
 * `pg`, required through Node's CommonJS loader (it is CommonJS), without the cost of its
 * Cloudflare probe. When pg loads it asks whether it runs in a Cloudflare Worker: where
 * `navigator` is undefined (Node 20) it builds a `Response` to look for Cloudflare's `cf`
 * property, and the first `Response` loads Node's whole fetch implementation — ~30 ms of every
 * start of a server on PostgreSQL, which never uses it (docs/storage.md, "Speed: start-up").
 * With a `navigator`, pg reads its `userAgent` instead; so while pg loads, a Node without one
 * lends it `{ userAgent: 'Node.js/<version>' }`, removed again before anything else runs.
 */
export function loadPg(): typeof PgModule {
  const lent = !('navigator' in globalThis);
  if (lent) Object.defineProperty(globalThis, 'navigator', { value: { userAgent: `Node.js/${process.versions.node}` }, configurable: true, writable: true });
  try {
    return nodeRequire('pg') as typeof PgModule;
  } finally {
    if (lent) delete (globalThis as { navigator?: unknown }).navigator;
  }
}
