import type { LeaseKind } from '../../engine/index.js';
import type { Readiness } from '../operations.js';
import type { SqlDriver } from './driver.js';
import { MIGRATIONS } from './migrate.js';
import { judgeSchema, type AppliedMigration } from './schema-compat.js';

/**
 * Ready when the database answers, takes writes (not a standby, nor a primary a failover demoted
 * whose connection survived: a server there would answer every write 503), and its schema is one this build serves on:
 * every migration this build knows applied, and any newer one (a rolling upgrade's later
 * release migrated first) compatible with it — expand-only since this build's level. Not ready
 * otherwise, saying exactly which migration requires which build (`schema-compat.ts`).
 */
export async function readReadiness(driver: SqlDriver): Promise<Readiness> {
  let applied: AppliedMigration[];
  try {
    // `*`: a history table Kysely's migrator wrote has no compatibility columns yet.
    applied = (await driver.query<AppliedMigration>('SELECT * FROM leasehold.schema_migrations')).rows;
  } catch (error) {
    return { ready: false, reason: `the database does not answer: ${(error as Error).message}` };
  }
  const writable = await readWritable(driver);
  if (writable !== undefined) return { ready: false, reason: writable };
  const verdict = judgeSchema(MIGRATIONS, applied);
  if (verdict.problem !== undefined) return { ready: false, reason: verdict.problem };
  if (verdict.pending.length > 0) return { ready: false, reason: `migrations not applied: ${verdict.pending.map((m) => m.name).join(', ')}` };
  const level = MIGRATIONS.at(-1)?.name ?? 'none';
  const newer = verdict.newer.length === 0 ? '' : ` (the database also has ${verdict.newer.join(', ')}: compatible)`;
  return { ready: true, detail: `${driver.kind}, schema at ${level}${newer}` };
}

/**
 * Why the database a pooled connection reached takes no writes, or `undefined` when it does. A
 * read-only connection is closed rather than pooled again, so the next one (through a router that
 * follows the primary) can reach a writable node: readiness recovers once the primary is back.
 */
async function readWritable(driver: SqlDriver): Promise<string | undefined> {
  let connection: Awaited<ReturnType<SqlDriver['connect']>>;
  try {
    connection = await driver.connect();
  } catch (error) {
    return `the database does not answer: ${(error as Error).message}`;
  }
  let why: string | undefined;
  try {
    const { rows } = await connection.query<{ recovery: boolean; read_only: string }>(
      "SELECT pg_is_in_recovery() AS recovery, current_setting('transaction_read_only') AS read_only",
    );
    const row = rows[0];
    if (row?.recovery === true) why = 'connected to a standby (the database is in recovery): this server writes nothing until it reaches the primary';
    else if (row?.read_only === 'on') why = 'connected to a read-only database (a demoted primary, or default_transaction_read_only): this server writes nothing until it reaches a writable primary';
  } catch (error) {
    why = `the database does not answer: ${(error as Error).message}`;
  } finally {
    connection.release(why !== undefined);
  }
  return why;
}

/** Live leases by kind, at the database's now (one statement). */
export async function readHeldByKind(driver: SqlDriver): Promise<Record<LeaseKind, number>> {
  const { rows } = await driver.query<{ kind: LeaseKind; held: number }>(
    `SELECT kind, count(*)::int AS held FROM leasehold.leases
      WHERE status = 'held' AND (expires_at IS NULL OR expires_at > leasehold.now_ms()) GROUP BY kind`,
  );
  const held: Record<LeaseKind, number> = { space: 0, task: 0, spool: 0 };
  for (const row of rows) held[row.kind] = row.held;
  return held;
}
