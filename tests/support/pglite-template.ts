/**
 * Embedded stores for the `pglite` project without paying for migrations per server: the schema
 * is migrated once into a PGlite data directory, dumped (`dumpDataDir`) to a file shared by the
 * run's workers (keyed by the migrations' source, written atomically), and each worker loads it
 * (`loadDataDir`) into the instances it lends. A returned instance is emptied (every table
 * truncated, the per-account fence sequences dropped, the clock reset) and lent again, so a
 * worker keeps as many instances as it had servers open at once — one, for most suites.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite, types } from '@electric-sql/pglite';
import { SqlStore, createPgliteDriver, type SqlDriver } from '../../packages/server/src/store/index.js';

const MIGRATIONS = fileURLToPath(new URL('../../packages/server/src/store/sql/migrations/', import.meta.url));

/**
 * Empties a lent database: the state a freshly migrated one has, migrations kept (PGlite's and
 * PostgreSQL's alike). Rows are deleted with triggers and foreign-key checks off (replica role),
 * identity sequences a test advanced are restarted, and only a table that held many rows is
 * truncated as well (its dead rows would slow the suites after it; PGlite has no autovacuum):
 * a TRUNCATE makes new files for every table it names, so truncating all ~20 tables cost
 * 50–160 ms per reset on PGlite and ~47 ms on PostgreSQL, this 9 and 13 ms.
 */
export const RESET_MIGRATED_DATABASE = String.raw`
DO $$
DECLARE r record; deleted bigint; crowded text[] := '{}';
BEGIN
  SET LOCAL session_replication_role = replica;
  FOR r IN SELECT fence_seq FROM leasehold.accounts LOOP
    EXECUTE format('DROP SEQUENCE IF EXISTS %s', r.fence_seq);
  END LOOP;
  FOR r IN SELECT c.oid::regclass::text AS tab,
                  (SELECT array_agg(pg_get_serial_sequence(c.oid::regclass::text, a.attname)) FROM pg_attribute a
                    WHERE a.attrelid = c.oid AND a.attidentity <> '') AS seqs
             FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = 'leasehold' AND c.relkind IN ('r', 'p')
              AND c.relname NOT IN ('clock', 'schema_migrations', 'schema_migrations_lock') AND c.relname NOT LIKE 'kysely%' LOOP
    EXECUTE format('DELETE FROM %s', r.tab);
    GET DIAGNOSTICS deleted = ROW_COUNT;
    IF deleted > 1000 THEN crowded := crowded || r.tab; END IF;
    FOR i IN 1 .. coalesce(cardinality(r.seqs), 0) LOOP
      IF pg_sequence_last_value(r.seqs[i]) IS NOT NULL THEN EXECUTE format('ALTER SEQUENCE %s RESTART', r.seqs[i]); END IF;
    END LOOP;
  END LOOP;
  IF cardinality(crowded) > 0 THEN
    EXECUTE 'TRUNCATE ' || array_to_string(crowded, ', ') || ' CASCADE';
  END IF;
  UPDATE leasehold.clock SET manual = false, manual_ms = 0, offset_ms = 0;
END $$;`;

function templateFile(): string {
  const hash = createHash('sha256');
  for (const name of readdirSync(MIGRATIONS).sort()) hash.update(name).update(readFileSync(join(MIGRATIONS, name)));
  // The migrator writes the history table: a change to it is a new template too.
  hash.update(readFileSync(join(MIGRATIONS, '..', 'migrate.ts')));
  return join(tmpdir(), `leasehold-pglite-template-${hash.digest('hex').slice(0, 16)}.tar`);
}

const open = (loadDataDir?: Blob, dataDir?: string) => PGlite.create({ dataDir, loadDataDir, parsers: { [types.INT8]: (value: string) => Number(value) } });

let template: Promise<Blob> | undefined;

/** The migrated template's dump (made by the first worker that needs it, then read from disk). */
function migratedTemplate(): Promise<Blob> {
  template ??= (async () => {
    const file = templateFile();
    if (existsSync(file)) return new Blob([readFileSync(file)]);
    const db = await open();
    const store = await SqlStore.open(await createPgliteDriver({ database: db }), { sweepIntervalMs: 0 });
    const dump = await db.dumpDataDir('none');
    await store.close();
    const partial = `${file}.${randomBytes(4).toString('hex')}`;
    writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    renameSync(partial, file);
    return dump;
  })();
  return template;
}

/** An instance of this worker's, with its driver (whose `close` keeps the instance open). */
interface Instance {
  readonly db: PGlite;
  readonly driver: SqlDriver;
}

const idle: Instance[] = [];

/** A lent embedded database, migrated and empty, and how to give it back. */
export interface LentPglite {
  readonly driver: SqlDriver;
  giveBack(): Promise<void>;
}

/** Borrow an empty migrated embedded database (an idle one of this worker's, or a new one). */
export async function borrowPglite(): Promise<LentPglite> {
  let instance = idle.pop();
  if (instance === undefined) {
    const db = await open(await migratedTemplate());
    const inner = await createPgliteDriver({ database: db });
    instance = { db, driver: { ...inner, close: async () => {} } };
  }
  const lent = instance;
  return {
    driver: lent.driver,
    async giveBack() {
      await lent.driver.query(RESET_MIGRATED_DATABASE);
      idle.push(lent);
    },
  };
}

/**
 * Writes the migrated template into `dataDir` (a new directory), so a CLI started with
 * `--store <dataDir>` finds its schema in place instead of migrating an empty database.
 */
export async function seedPgliteDirectory(dataDir: string): Promise<void> {
  const db = await open(await migratedTemplate(), dataDir);
  await db.close();
}
