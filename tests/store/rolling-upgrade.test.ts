/**
 * Rolling upgrades on the SQL stores (docs/operating.md, "Rolling upgrades"): a build keeps
 * serving on a database a newer release migrated when the newer migrations are expand-only, and
 * refuses — at start, in `migrate`, and on `/readyz` while running — when one is a contract
 * beyond it, naming the migration and the build it requires. A database Kysely's migrator (the
 * builds before this migrator) left is recognised as it is. Migrators exclude each other with
 * Kysely's advisory lock key, so an old and a new build starting side by side never collide.
 * The "newer release" is this build's migrations plus a fixture migration numbered 9990+.
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_KEYS } from '../../packages/server/src/engine/index.js';
import { createLeaseholdServer } from '../../packages/server/src/leasehold-server.js';
import {
  SchemaIncompatibleError,
  SqlStore,
  StoreOpenError,
  createPgDriver,
  createPgliteDriver,
  knownMigrations,
  migrate,
  migrateStore,
  type MigrationDefinition,
  type SqlDriver,
} from '../../packages/server/src/store/index.js';
import { MIGRATIONS } from '../../packages/server/src/store/sql/migrate.js';
import { withCompatibility } from '../../packages/server/src/store/sql/schema-compat.js';
import { createTestDatabase } from '../support/postgres-database.js';

/** The oldest schema level this build's latest migration still serves (its last contract's). */
const COMPATIBLE_FROM = withCompatibility(MIGRATIONS).at(-1)!.compatibleFrom;

/** A newer release's expand migration: a new table and a new column with a default. */
const FUTURE_EXPAND: MigrationDefinition = {
  name: '9990-future-expand',
  kind: 'expand',
  sql: `CREATE TABLE leasehold.future_notes (note_id bigint PRIMARY KEY, body text);
        ALTER TABLE leasehold.tasks ADD COLUMN future_flag boolean NOT NULL DEFAULT false;`,
};
/** A newer release's contract migration: it drops what this build still reads. */
const FUTURE_CONTRACT: MigrationDefinition = {
  name: '9991-future-contract',
  kind: 'contract',
  sql: `ALTER TABLE leasehold.tasks RENAME COLUMN title TO heading;`,
};

const LEVEL = knownMigrations().at(-1) as string;
const CONTRACT_MESSAGE = `the database has migration 9991-future-contract (contract) which requires a build of schema ≥ 9991; this build knows up to ${LEVEL}`;

interface Database {
  /** A new driver on the database (a process of its own, for PostgreSQL). */
  driver(): Promise<SqlDriver>;
  /** A `--store` value for `migrateStore`, when there is one. */
  readonly target?: string;
  /** One statement on a connection of the test's own (not through the store's driver). */
  sql<T = Record<string, unknown>>(text: string): Promise<T[]>;
}

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
});

async function postgres(): Promise<Database> {
  const db = await createTestDatabase();
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  cleanups.push(db.drop, () => client.end());
  return {
    target: db.url,
    async driver() {
      const driver = createPgDriver({ url: db.url, poolSize: 3 });
      cleanups.push(() => driver.close());
      return driver;
    },
    sql: async (text) => (await client.query(text)).rows,
  };
}

async function pglite(): Promise<Database> {
  // One in-process database; each "build" gets a driver over it (closing one keeps it open).
  const inner = await createPgliteDriver();
  cleanups.push(() => inner.close());
  const shared: SqlDriver = { ...inner, close: async () => {} };
  return { driver: async () => shared, sql: async (text) => (await inner.query(text)).rows as never };
}

const app = (store: SqlStore) => createLeaseholdServer({ store });
const readyz = async (store: SqlStore) => {
  const response = await app(store).fetch(new Request('http://localhost/readyz'));
  return { status: response.status, body: (await response.json()) as { status?: string; store?: string; message?: string } };
};
const createTask = async (store: SqlStore, title: string) => {
  const response = await app(store).fetch(
    new Request('http://localhost/v1/tasks', {
      method: 'POST',
      headers: { authorization: 'Bearer lh_test_admin', 'content-type': 'application/json', 'idempotency-key': `k-${title}` },
      body: JSON.stringify({ title }),
    }),
  );
  return response.status;
};
const open = async (db: Database) => {
  const store = await SqlStore.open(await db.driver(), { keys: DEFAULT_KEYS, sweepIntervalMs: 0 });
  cleanups.push(() => store.close());
  return store;
};

describe.each([
  ['postgres', postgres],
  ['pglite', pglite],
] as const)('rolling upgrade — %s', (_kind, database) => {
  it('this build starts, migrates (nothing to apply) and serves on a schema a newer release expanded', async () => {
    const db = await database();
    const newer = await migrate(await db.driver(), [...MIGRATIONS, FUTURE_EXPAND]);
    expect(newer.applied).toEqual([...knownMigrations(), FUTURE_EXPAND.name]);
    const recorded = await db.sql<{ kind: string; compatible_from: string }>(
      `SELECT kind, compatible_from FROM leasehold.schema_migrations WHERE name = '${FUTURE_EXPAND.name}'`,
    );
    // An expand migration keeps the level builds before it need: the latest contract's (0002).
    expect(recorded).toEqual([{ kind: 'expand', compatible_from: COMPATIBLE_FROM }]);

    expect(await migrate(await db.driver())).toEqual({ applied: [], current: [...knownMigrations(), FUTURE_EXPAND.name] });
    const store = await open(db);
    expect(await readyz(store)).toEqual({
      status: 200,
      body: { status: 'ready', store: `${_kind}, schema at ${LEVEL} (the database also has ${FUTURE_EXPAND.name}: compatible)` },
    });
    expect(await createTask(store, 'on a newer schema')).toBe(201);
    if (db.target !== undefined) expect(await migrateStore(db.target)).toEqual({ applied: [], current: [...knownMigrations(), FUTURE_EXPAND.name] });
  }, 60_000);

  it('a contract migration beyond this build: start and migrate refuse, and a running server turns unready, saying why', async () => {
    const db = await database();
    const store = await open(db);
    expect((await readyz(store)).status).toBe(200);
    // The newer release migrates while this build is serving.
    expect((await migrate(await db.driver(), [...MIGRATIONS, FUTURE_EXPAND, FUTURE_CONTRACT])).applied).toEqual([FUTURE_EXPAND.name, FUTURE_CONTRACT.name]);
    const ready = await readyz(store);
    expect(ready.status).toBe(503);
    expect(ready.body.message).toBe(`The store is not ready: ${CONTRACT_MESSAGE}: run a build of that schema or later.`);

    const starting = SqlStore.open(await db.driver(), { keys: DEFAULT_KEYS, sweepIntervalMs: 0 });
    await expect(starting).rejects.toBeInstanceOf(SchemaIncompatibleError);
    await expect(starting).rejects.toBeInstanceOf(StoreOpenError);
    await expect(starting).rejects.toThrow(`The database schema is incompatible with this build: ${CONTRACT_MESSAGE}`);
    await expect(migrate(await db.driver())).rejects.toThrow(CONTRACT_MESSAGE);
    if (db.target !== undefined) await expect(migrateStore(db.target)).rejects.toThrow(CONTRACT_MESSAGE);
    // The newer release itself still serves.
    expect(await migrate(await db.driver(), [...MIGRATIONS, FUTURE_EXPAND, FUTURE_CONTRACT])).toMatchObject({ applied: [] });
  }, 60_000);

  it('a contract that declares an older level it stays compatible with lets builds of that level serve', async () => {
    const db = await database();
    // E.g. it drops a column this build no longer reads: builds from this level on keep working.
    const declared: MigrationDefinition = {
      name: '9992-future-contract',
      kind: 'contract',
      compatibleFrom: LEVEL.slice(0, 4),
      sql: 'CREATE TABLE leasehold.future_after_contract (id int)',
    };
    await migrate(await db.driver(), [...MIGRATIONS, declared]);
    expect(await migrate(await db.driver())).toMatchObject({ applied: [] });
    expect((await readyz(await open(db))).status).toBe(200);
  }, 60_000);

  it('a database Kysely migrated (its history table, no compatibility columns) is up to date, and is then recorded with its compatibility', async () => {
    const db = await database();
    const driver = await db.driver();
    // What the builds before this migrator left: every migration applied, Kysely's two tables.
    await driver.transaction(async (tx) => {
      await tx.query('CREATE SCHEMA IF NOT EXISTS leasehold');
      for (const m of MIGRATIONS) await tx.query(m.sql);
      await tx.query(`CREATE TABLE leasehold.schema_migrations (name varchar(255) NOT NULL PRIMARY KEY, timestamp varchar(255) NOT NULL);
        CREATE TABLE leasehold.schema_migrations_lock (id varchar(255) NOT NULL PRIMARY KEY, is_locked integer NOT NULL DEFAULT 0);
        INSERT INTO leasehold.schema_migrations_lock VALUES ('migration_lock', 0);
        INSERT INTO leasehold.schema_migrations (name, timestamp)
          SELECT name, '2026-11-01T00:00:00.000Z' FROM unnest(ARRAY[${MIGRATIONS.map((m) => `'${m.name}'`).join(',')}]) AS name;`);
    });
    // Before its first migrate, /readyz of this build reads that table as it is.
    const store = await SqlStore.open(driver, { keys: DEFAULT_KEYS, sweepIntervalMs: 0, migrate: false });
    cleanups.push(() => store.close());
    expect((await readyz(store)).status).toBe(200);
    expect(await migrate(driver)).toEqual({ applied: [], current: knownMigrations() });
    const rows = await db.sql<{ name: string; timestamp: string; kind: string; compatible_from: string }>(
      'SELECT name, timestamp, kind, compatible_from FROM leasehold.schema_migrations ORDER BY name',
    );
    expect(rows.map((r) => [r.name, r.timestamp, r.kind])).toEqual(MIGRATIONS.map((m) => [m.name, '2026-11-01T00:00:00.000Z', m.kind]));
    expect(rows.at(-1)?.compatible_from).toBe(COMPATIBLE_FROM);
    expect(await createTask(store, 'after kysely')).toBe(201);
  }, 60_000);

  it('a database Kysely migrated to an older level gets only the migrations it lacks', async () => {
    const db = await database();
    const driver = await db.driver();
    const [older, rest] = [MIGRATIONS.slice(0, -1), MIGRATIONS.slice(-1)];
    await driver.transaction(async (tx) => {
      await tx.query('CREATE SCHEMA IF NOT EXISTS leasehold');
      for (const m of older) await tx.query(m.sql);
      await tx.query(`CREATE TABLE leasehold.schema_migrations (name varchar(255) NOT NULL PRIMARY KEY, timestamp varchar(255) NOT NULL);
        INSERT INTO leasehold.schema_migrations (name, timestamp)
          SELECT name, '2026-11-01T00:00:00.000Z' FROM unnest(ARRAY[${older.map((m) => `'${m.name}'`).join(',')}]) AS name;`);
    });
    expect(await migrate(driver)).toEqual({ applied: rest.map((m) => m.name), current: knownMigrations() });
  }, 60_000);

  it('a history that skipped a migration of this build below its latest is refused, naming both', async () => {
    const db = await database();
    const driver = await db.driver();
    const skipped = MIGRATIONS.at(-2) as MigrationDefinition;
    await migrate(driver, MIGRATIONS.filter((m) => m !== skipped));
    await expect(migrate(driver)).rejects.toThrow(
      `the database lacks migration ${skipped.name} of this build but already has the later ${LEVEL}: migrations apply in order, and a released migration is never added below a later one`,
    );
  }, 60_000);
});

describe('the migration lock — postgres', () => {
  it("waits for Kysely's migrator (a session holding its advisory lock), then applies", async () => {
    const db = await postgres();
    const holder = await db.sql<{ pid: number }>('SELECT pg_backend_pid() AS pid, pg_advisory_lock(3853314791062309107)');
    const driver = await db.driver();
    const migrating = migrate(driver);
    // Deterministic, no sleep: wait (bounded) until the migrator is seen waiting for that lock.
    let waiting = 0;
    for (let i = 0; i < 400 && waiting === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      const rows = await db.sql<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND pid <> ${holder[0]?.pid}`,
      );
      waiting = rows[0]?.n ?? 0;
    }
    expect(waiting).toBe(1);
    expect(await db.sql<{ n: number }>(`SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'leasehold' AND tablename = 'tasks'`)).toEqual([{ n: 0 }]);
    await db.sql('SELECT pg_advisory_unlock(3853314791062309107)');
    expect((await migrating).applied).toEqual(knownMigrations());
  }, 60_000);
});
