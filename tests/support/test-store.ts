/**
 * The store matrix of the server suites: `LEASEHOLD_TEST_STORE` (set per vitest project, see
 * vitest.config.ts) picks the store every `startServer` of the harness runs on — `memory` (the
 * default), `postgres` (a fresh database per server, cloned from a migrated template in the run's
 * throwaway cluster, tests/support/postgres-cluster.ts) or `pglite` (an embedded PostgreSQL in
 * memory, loaded once per worker from a migrated template, `pglite-template.ts`, and emptied
 * between servers). The suites are the same; only the store changes.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { DEFAULT_KEYS, ManualClock, type Clock, type KeyConfig, type RandomSource } from '../../packages/server/src/engine/index.js';
import { SqlStore, createPgDriver, type SqlDriver, type Store } from '../../packages/server/src/store/index.js';
import { RESET_MIGRATED_DATABASE, borrowPglite } from './pglite-template.js';

/** Which store the suites of this project run on. */
export type TestStoreKind = 'memory' | 'postgres' | 'pglite';

/** The store of this vitest project. */
export const TEST_STORE: TestStoreKind = ((): TestStoreKind => {
  const kind = process.env.LEASEHOLD_TEST_STORE ?? 'memory';
  if (kind !== 'memory' && kind !== 'postgres' && kind !== 'pglite') throw new Error(`LEASEHOLD_TEST_STORE=${kind}: use memory, postgres or pglite`);
  return kind;
})();

/** What a server of the suites asks of its store. */
export interface TestStoreOptions {
  clock?: 'real' | 'manual' | Clock | undefined;
  startTime?: number | undefined;
  keys?: readonly KeyConfig[] | undefined;
  random?: RandomSource | undefined;
}

/** A SQL store for one server, and how to throw it away. */
export interface TestStore {
  readonly store: Store;
  /** The store's driver: a suite reads what the API does not show (e.g. every lease event) through it. */
  readonly driver: SqlDriver;
  dispose(): Promise<void>;
}

let template: Promise<string> | undefined;

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: inject('postgresUrl') });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** A migrated, empty database to clone (once per test worker). */
function migratedTemplate(): Promise<string> {
  template ??= (async () => {
    const name = `lh_tpl_${randomBytes(6).toString('hex')}`;
    await admin((c) => c.query(`CREATE DATABASE ${name}`));
    const url = inject('postgresUrl').replace(/\/[^/]*$/, `/${name}`);
    const store = await SqlStore.open(createPgDriver({ url, poolSize: 1 }), { sweepIntervalMs: 0 });
    await store.close();
    return name;
  })();
  return template;
}

function clockOf(options: TestStoreOptions): { clock: 'real' | 'manual'; startTime: number | undefined } {
  const clock = options.clock;
  if (clock === undefined || clock === 'manual') return { clock: 'manual', startTime: options.startTime };
  if (clock === 'real') return { clock: 'real', startTime: undefined };
  if (clock instanceof ManualClock) return { clock: 'manual', startTime: clock.now() };
  throw new Error('a SQL store keeps its own clock: pass clock "real" or "manual"');
}

/**
 * A SQL store of this project's kind for one server (`undefined` on the memory project: the
 * server builds its own memory store from the same options).
 */
export async function openTestStore(options: TestStoreOptions): Promise<TestStore | undefined> {
  if (TEST_STORE === 'memory') return undefined;
  const { clock, startTime } = clockOf(options);
  const storeOptions = { clock, startTime, keys: options.keys ?? DEFAULT_KEYS, random: options.random, sweepIntervalMs: 0 };
  if (TEST_STORE === 'pglite') {
    const lent = await borrowPglite();
    const store = await SqlStore.open(lent.driver, { ...storeOptions, migrate: false });
    return {
      store,
      driver: lent.driver,
      async dispose() {
        await store.close();
        await lent.giveBack();
      },
    };
  }
  const name = idleDatabases.pop() ?? (await newDatabase());
  const url = databaseUrl(name);
  const driver = createPgDriver({ url, poolSize: 4 });
  const store = await SqlStore.open(driver, { ...storeOptions, migrate: false });
  return {
    store,
    driver,
    async dispose() {
      await store.close();
      // Emptied and lent again (a DROP DATABASE costs a checkpoint; a TRUNCATE of the schema does not).
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(RESET_MIGRATED_DATABASE);
      } finally {
        await client.end();
      }
      idleDatabases.push(name);
    },
  };
}

/** This worker's emptied databases, ready to lend again. */
const idleDatabases: string[] = [];

function databaseUrl(name: string): string {
  return inject('postgresUrl').replace(/\/[^/]*$/, `/${name}`);
}

/** A new database cloned from the migrated template. */
async function newDatabase(): Promise<string> {
  const source = await migratedTemplate();
  const name = `lh_${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${source}`));
  return name;
}

/**
 * The `--store` argument of a CLI server on this project's store, and how to throw that store
 * away: nothing on memory (the CLI's default), a fresh database cloned from the migrated template
 * on postgres, a fresh directory (the embedded store, migrated by the CLI as it opens) on pglite.
 */
export async function cliStoreArgs(): Promise<{ args: string[]; dispose(): Promise<void> }> {
  if (TEST_STORE === 'memory') return { args: [], dispose: async () => {} };
  if (TEST_STORE === 'pglite') {
    const dir = mkdtempSync(join(tmpdir(), 'leasehold-cli-store-'));
    return { args: ['--store', dir], dispose: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const source = await migratedTemplate();
  const name = `lh_${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${source}`));
  return {
    args: ['--store', inject('postgresUrl').replace(/\/[^/]*$/, `/${name}`)],
    dispose: () => admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}
