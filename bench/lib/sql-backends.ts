/**
 * The two SQL back ends of the store benchmarks: a throwaway PostgreSQL cluster (the tests'
 * helper: Debian's binaries, a temp dir, 127.0.0.1, a free port; stopped by `close()`) and an
 * in-memory PGlite. Each hands out stores (`SqlStore` over the store's own driver, its queries
 * counted) and a direct client of the same database through the same driver (a raw `pg.Pool`
 * with named, i.e. prepared, statements; the store's PGlite driver over the very same instance,
 * which prepares statements too) for the ceilings.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { DEFAULT_KEYS, type KeyConfig } from '../../packages/server/src/engine/index.js';
import {
  SqlStore,
  createPgDriver,
  createPgliteDriver,
  openPglite,
  type SqlStoreOptions,
} from '../../packages/server/src/store/index.js';
import { startPostgresCluster, type PostgresCluster } from '../../tests/support/postgres-cluster.js';
import { API_KEY } from './fixtures.js';
import { QueryCounter } from './sql-counter.js';

/** The account and credentials every SQL benchmark uses (the demo admin key plus a heartbeat key). */
export const BENCH_ACCOUNT = 'acct_bench';
/** The key the renew, acquire and spool loops use. */
export const BENCH_KEY = API_KEY;
/** A second key of the same account: it holds the heartbeat's leases alone. */
export const HEARTBEAT_KEY = 'lh_bench_heartbeat';
/** Keys registered in every bench store. */
export const BENCH_KEYS: KeyConfig[] = [
  ...DEFAULT_KEYS,
  { apiKey: HEARTBEAT_KEY, credentialId: 'cred_bench_heartbeat', accountId: BENCH_ACCOUNT },
].map((k) => (k.apiKey === API_KEY ? { ...k, credentialId: 'cred_bench', accountId: BENCH_ACCOUNT } : k));

/** A client of the database that bypasses the store: the ceiling's path. */
export interface DirectSql {
  /** One statement; `name` makes it a prepared statement with `pg`. */
  query<T = Record<string, unknown>>(text: string, params?: readonly unknown[], name?: string): Promise<T[]>;
}

/** A store of a back end and the counter on its driver. */
export interface BenchStore {
  store: SqlStore;
  counter: QueryCounter;
}

/** One database of a back end. */
export interface SqlBackend {
  kind: 'postgres' | 'pglite';
  /** The database's URL (PostgreSQL only). */
  url?: string;
  /** Open a store on this database (PGlite: once; PostgreSQL: as many as wanted, each with its own pool). */
  openStore(options?: { poolSize?: number } & SqlStoreOptions): Promise<BenchStore>;
  /** The direct client (PGlite: the store's own instance, so open the store first). */
  direct(): DirectSql;
  /** Close the direct client and every store opened here. */
  close(): Promise<void>;
}

/** The default pool of the store (`createPgDriver`): the ceiling's pool has the same size. */
export const POOL_SIZE = 10;

const INT8 = 20;
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format ?? 'text');
  },
} as pg.CustomTypesConfig;

/** A throwaway cluster and a way to make databases in it. */
export interface BenchCluster {
  /** A fresh database of the cluster as a back end. */
  database(): Promise<SqlBackend>;
  /** Stop the cluster and delete its data. */
  stop(): void;
}

/** Start a throwaway PostgreSQL cluster (about a second). */
export async function startBenchCluster(): Promise<BenchCluster> {
  const cluster: PostgresCluster = await startPostgresCluster();
  return {
    async database() {
      const name = `bench_${randomBytes(4).toString('hex')}`;
      const admin = new pg.Client({ connectionString: cluster.url });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
      await admin.end();
      return postgresBackend(cluster.urlOf(name));
    },
    stop: () => cluster.stop(),
  };
}

function postgresBackend(url: string): SqlBackend {
  const stores: SqlStore[] = [];
  let pool: pg.Pool | undefined;
  return {
    kind: 'postgres',
    url,
    async openStore(options = {}) {
      const counter = new QueryCounter();
      const store = await SqlStore.open(createPgDriver({ url, poolSize: options.poolSize ?? POOL_SIZE, onQuery: counter.onQuery }), {
        keys: BENCH_KEYS,
        sweepIntervalMs: 0,
        ...options,
      });
      stores.push(store);
      return { store, counter };
    },
    direct() {
      pool ??= new pg.Pool({ connectionString: url, max: POOL_SIZE, options: '-c search_path=leasehold -c jit=off', types });
      const p = pool;
      return {
        async query<T>(text: string, params: readonly unknown[] = [], name?: string) {
          const result = await p.query({ text, values: params as unknown[], ...(name === undefined ? {} : { name }) });
          return result.rows as T[];
        },
      };
    },
    async close() {
      await Promise.all(stores.map((s) => s.close()));
      await pool?.end();
    },
  };
}

/** An in-memory PGlite database as a back end (one store; the direct client is its instance). */
export async function pgliteBackend(): Promise<SqlBackend> {
  const db = await openPglite();
  let store: SqlStore | undefined;
  return {
    kind: 'pglite',
    async openStore(options = {}) {
      if (store !== undefined) throw new Error('a PGlite back end has one store');
      const counter = new QueryCounter();
      store = await SqlStore.open(await createPgliteDriver({ database: db, onQuery: counter.onQuery }), {
        keys: BENCH_KEYS,
        sweepIntervalMs: 0,
        ...options,
      });
      return { store, counter };
    },
    direct() {
      // The same driver over the same instance (statements prepared once, sent as EXECUTE), not the store.
      const driver = createPgliteDriver({ database: db });
      return {
        async query<T>(text: string, params: readonly unknown[] = []) {
          return (await (await driver).query<T>(text, params)).rows;
        },
      };
    },
    async close() {
      await store?.close();
      if (store === undefined) await db.close();
    },
  };
}
