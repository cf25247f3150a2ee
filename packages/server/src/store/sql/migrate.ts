import { sqlMigrations } from '../../generated/sql-migrations.js';
import type { SqlDriver, SqlSession } from './driver.js';
import { judgeSchema, SchemaIncompatibleError, withCompatibility, type AppliedMigration, type MigrationDefinition } from './schema-compat.js';

/** The schema every table of the store lives in (the migrator's own table too). */
export const STORE_SCHEMA = 'leasehold';

/**
 * The advisory lock migrators take: the key Kysely's migrator took on PostgreSQL, so a build of
 * before this migrator and one of after, starting side by side in a rolling upgrade, still
 * migrate one at a time.
 */
const MIGRATION_LOCK = '3853314791062309107';

/**
 * The history table: the columns Kysely's migrator created (`name`, `timestamp`), so a database
 * it migrated is read as it is, plus `kind` and `compatible_from` (see `schema-compat.ts`).
 */
const HISTORY = String.raw`
CREATE SCHEMA IF NOT EXISTS leasehold;
CREATE TABLE IF NOT EXISTS leasehold.schema_migrations (
  name varchar(255) NOT NULL PRIMARY KEY,
  timestamp varchar(255) NOT NULL
)`;
const HISTORY_COLUMNS = String.raw`
ALTER TABLE leasehold.schema_migrations ADD COLUMN IF NOT EXISTS kind text, ADD COLUMN IF NOT EXISTS compatible_from text`;

/** What `migrate` did. */
export interface MigrationReport {
  /** Migrations applied now, in order. */
  readonly applied: string[];
  /** Every migration the database has, after this run (newer ones of a later release included). */
  readonly current: string[];
}

/** Every migration this build knows, in order (embedded from `migrations/*.sql` by `pnpm gen`). */
export const MIGRATIONS: readonly MigrationDefinition[] = sqlMigrations;

/**
 * Bring the store's schema up to date: in ONE transaction, under a transaction-scoped advisory
 * lock (two processes migrating at once: the second waits, then finds nothing to do), apply
 * every migration this build knows that the database lacks, in order, recording each with its
 * compatibility. Migrations a newer release applied are fine when they are compatible with this
 * build (expand-only since its level); otherwise — or when the history does not fit this
 * build's — it applies nothing and throws `SchemaIncompatibleError` saying which migration
 * needs which build. Used at start and by `leasehold-server migrate`. `migrations` is for tests
 * (a "newer build" with a fixture migration); the server always runs its own.
 * @example
 * await migrate(driver); // { applied: ['0001-initial', …], current: ['0001-initial', …] }
 */
export async function migrate(driver: SqlDriver, migrations: readonly MigrationDefinition[] = MIGRATIONS): Promise<MigrationReport> {
  return driver.transaction(async (tx) => {
    await lockMigrations(tx);
    await tx.query(HISTORY);
    const { rows: columns } = await tx.query<{ column_name: string }>(
      `SELECT column_name FROM information_schema.columns WHERE table_schema = 'leasehold' AND table_name = 'schema_migrations'`,
    );
    if (!columns.some((c) => c.column_name === 'compatible_from')) await tx.query(HISTORY_COLUMNS);
    const levels = withCompatibility(migrations);
    // Rows Kysely's migrator wrote carry no compatibility: this build knows theirs.
    for (const { definition, compatibleFrom } of levels) {
      await tx.query(`UPDATE leasehold.schema_migrations SET kind = $2, compatible_from = $3 WHERE name = $1 AND compatible_from IS NULL`, [
        definition.name,
        definition.kind,
        compatibleFrom,
      ]);
    }
    const { rows } = await tx.query<AppliedMigration>('SELECT name, kind, compatible_from FROM leasehold.schema_migrations ORDER BY name');
    const verdict = judgeSchema(migrations, rows);
    if (verdict.problem !== undefined) throw new SchemaIncompatibleError(verdict.problem);
    const applied: string[] = [];
    for (const { definition, compatibleFrom } of levels) {
      if (!verdict.pending.includes(definition)) continue;
      try {
        await tx.query(definition.sql);
      } catch (error) {
        throw new Error(`Migration ${definition.name} failed: ${(error as Error).message}`, { cause: error });
      }
      await tx.query(`INSERT INTO leasehold.schema_migrations (name, timestamp, kind, compatible_from) VALUES ($1, $2, $3, $4)`, [
        definition.name,
        new Date().toISOString(),
        definition.kind,
        compatibleFrom,
      ]);
      applied.push(definition.name);
    }
    const current = [...rows.map((r) => r.name), ...applied].sort();
    return { applied, current };
  });
}

/**
 * Take the migration lock for the rest of the transaction, waiting for another migrator as
 * long as it takes (up to an hour, Kysely's bound) whatever the connection's `lock_timeout` and
 * `statement_timeout`; the migrations themselves then run with the connection's timeouts.
 */
async function lockMigrations(tx: SqlSession): Promise<void> {
  const { rows } = await tx.query<{ lock_timeout: string; statement_timeout: string }>(
    `SELECT current_setting('lock_timeout') AS lock_timeout, current_setting('statement_timeout') AS statement_timeout`,
  );
  const saved = rows[0] as { lock_timeout: string; statement_timeout: string };
  await tx.query(`SET LOCAL lock_timeout = '1h'; SET LOCAL statement_timeout = '1h'`);
  await tx.query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`);
  await tx.query(`SELECT set_config('lock_timeout', $1, true), set_config('statement_timeout', $2, true)`, [saved.lock_timeout, saved.statement_timeout]);
}

/** The names of the migrations this build knows (the latest is its schema level). */
export function knownMigrations(): string[] {
  return MIGRATIONS.map((m) => m.name);
}
