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
 * PostgreSQL's alike). Only the tables a test wrote (rows, or an identity sequence it advanced)
 * are truncated, in one statement: a TRUNCATE makes new files for each table it names, so the
 * ~20 tables one by one cost 50–160 ms per reset on PGlite, the few a test touched ~15 ms.
 */
export const RESET_MIGRATED_DATABASE = String.raw`
DO $$
DECLARE r record; written text[] := '{}'; found boolean;
BEGIN
  FOR r IN SELECT fence_seq FROM leasehold.accounts LOOP
    EXECUTE format('DROP SEQUENCE IF EXISTS %s', r.fence_seq);
  END LOOP;
  FOR r IN SELECT c.relname, (SELECT bool_or(pg_sequence_last_value(pg_get_serial_sequence(c.oid::regclass::text, a.attname)) IS NOT NULL)
                                FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attidentity <> '') AS advanced
             FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = 'leasehold' AND c.relkind IN ('r', 'p')
              AND c.relname NOT IN ('clock', 'schema_migrations', 'schema_migrations_lock') AND c.relname NOT LIKE 'kysely%' LOOP
    EXECUTE format('SELECT EXISTS (SELECT 1 FROM leasehold.%I)', r.relname) INTO found;
    IF found OR coalesce(r.advanced, false) THEN
      written := written || format('leasehold.%I', r.relname);
    END IF;
  END LOOP;
  IF cardinality(written) > 0 THEN
    EXECUTE 'TRUNCATE ' || array_to_string(written, ', ') || ' RESTART IDENTITY CASCADE';
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
