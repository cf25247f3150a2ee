import {
  Kysely,
  Migrator,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type MigrationResultSet,
  type QueryResult,
} from 'kysely';
import type { SqlConnection, SqlDriver } from './driver.js';
import { migrations } from './migrations/index.js';

/** The schema every table of the store lives in (the migrator's own tables too). */
export const STORE_SCHEMA = 'leasehold';

/** Kysely's connection, over one dedicated connection of the store's driver. */
class StoreConnection implements DatabaseConnection {
  constructor(readonly connection: SqlConnection) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const result = await this.connection.query<R>(compiled.sql, compiled.parameters);
    return { rows: result.rows, numAffectedRows: BigInt(result.rowCount) };
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('The store does not stream queries');
  }
}

/** Kysely's driver over the store's `SqlDriver` (which the store owns and closes). */
class StoreKyselyDriver implements Driver {
  constructor(private readonly driver: SqlDriver) {}
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    return new StoreConnection(await this.driver.connect());
  }
  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as StoreConnection).connection.query('BEGIN');
  }
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as StoreConnection).connection.query('COMMIT');
  }
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as StoreConnection).connection.query('ROLLBACK');
  }
  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as StoreConnection).connection.release();
  }
  async destroy(): Promise<void> {}
}

/** A Kysely dialect for PostgreSQL and PGlite alike, through the store's driver interface. */
function storeDialect(driver: SqlDriver): Dialect {
  return {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new StoreKyselyDriver(driver),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  };
}

/** What `migrate` did. */
export interface MigrationReport {
  /** Migrations applied now, in order. */
  readonly applied: string[];
  /** Every migration the database has, after this run. */
  readonly current: string[];
}

/**
 * Bring the store's schema up to date with Kysely's `Migrator`: migrations are versioned
 * (`migrations/index.ts`, applied in name order, never edited once released), all pending ones
 * run in one transaction under a PostgreSQL advisory lock, so two processes migrating at once
 * never collide (the second waits, then finds nothing to do). Used at start and by
 * `leasehold-server migrate`.
 * @example
 * await migrate(driver); // { applied: ['0001-initial'], current: ['0001-initial'] }
 */
export async function migrate(driver: SqlDriver): Promise<MigrationReport> {
  const db = new Kysely<unknown>({ dialect: storeDialect(driver) });
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    migrationTableSchema: STORE_SCHEMA,
    migrationTableName: 'schema_migrations',
    migrationLockTableName: 'schema_migrations_lock',
  });
  const result: MigrationResultSet = await migrator.migrateToLatest();
  if (result.error !== undefined) {
    const failed = result.results?.find((r) => r.status === 'Error')?.migrationName;
    throw new Error(`Migration ${failed ?? ''} failed: ${String((result.error as Error).message ?? result.error)}`, {
      cause: result.error,
    });
  }
  const applied = (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
  const current = (await migrator.getMigrations()).filter((m) => m.executedAt !== undefined).map((m) => m.name);
  await db.destroy();
  return { applied, current };
}

/** The names of the migrations this build knows (the latest is what `/readyz` expects). */
export function knownMigrations(): string[] {
  return Object.keys(migrations).sort();
}
