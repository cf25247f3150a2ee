/**
 * A reference server on this vitest project's store (tests/support/test-store.ts), for suites
 * that drive `server.handle` or their own listener rather than the harness's `startServer`.
 * `LEASEHOLD_TEST_STORE=memory` builds exactly what `createLeaseholdServer(options)` builds; on
 * the SQL projects the same options open a fresh SQL store. `disposeMatrixServers` (a suite's
 * `afterAll`) closes every store opened so far.
 */
import { createLeaseholdServer, type LeaseholdServer, type LeaseholdServerOptions, type Store } from '../../packages/server/src/index.js';
import type { SqlDriver } from '../../packages/server/src/store/index.js';
import { openTestStore, type TestStore } from './test-store.js';

const opened = new Map<LeaseholdServer<Store>, TestStore>();

/** `createLeaseholdServer(options)` over this project's store. */
export async function createMatrixServer(options: LeaseholdServerOptions = {}): Promise<LeaseholdServer<Store>> {
  const sql = await openTestStore(options);
  if (sql === undefined) return createLeaseholdServer(options);
  const server = createLeaseholdServer({ ...options, store: sql.store });
  opened.set(server, sql);
  return server;
}

/** The driver of the SQL store of a server `createMatrixServer` built (`undefined` on the memory project). */
export function matrixStoreDriver(server: LeaseholdServer<Store>): SqlDriver | undefined {
  return opened.get(server)?.driver;
}

/** Close (and throw away) the SQL store of one server `createMatrixServer` built. */
export async function disposeMatrixServer(server: LeaseholdServer<Store>): Promise<void> {
  const sql = opened.get(server);
  opened.delete(server);
  await sql?.dispose();
}

/** Close (and throw away) every SQL store `createMatrixServer` opened. */
export async function disposeMatrixServers(): Promise<void> {
  const stores = [...opened.values()];
  opened.clear();
  await Promise.all(stores.map((s) => s.dispose()));
}
