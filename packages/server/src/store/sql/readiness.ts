import type { LeaseKind } from '../../engine/index.js';
import type { Readiness } from '../operations.js';
import type { SqlDriver } from './driver.js';
import { MIGRATIONS } from './migrate.js';
import { judgeSchema, type AppliedMigration } from './schema-compat.js';

/**
 * Ready when the database answers (one statement) and its schema is one this build serves on:
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
  const verdict = judgeSchema(MIGRATIONS, applied);
  if (verdict.problem !== undefined) return { ready: false, reason: verdict.problem };
  if (verdict.pending.length > 0) return { ready: false, reason: `migrations not applied: ${verdict.pending.map((m) => m.name).join(', ')}` };
  const level = MIGRATIONS.at(-1)?.name ?? 'none';
  const newer = verdict.newer.length === 0 ? '' : ` (the database also has ${verdict.newer.join(', ')}: compatible)`;
  return { ready: true, detail: `${driver.kind}, schema at ${level}${newer}` };
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
