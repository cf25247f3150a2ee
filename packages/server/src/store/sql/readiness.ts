import type { LeaseKind } from '../../engine/index.js';
import type { Readiness } from '../operations.js';
import type { SqlDriver } from './driver.js';
import { knownMigrations } from './migrate.js';

/**
 * Ready when the database answers and has applied every migration this build knows (one
 * statement); a newer schema (a rolling upgrade's later build migrated first) is ready too.
 */
export async function readReadiness(driver: SqlDriver): Promise<Readiness> {
  let applied: Set<string>;
  try {
    const { rows } = await driver.query<{ name: string }>('SELECT name FROM leasehold.schema_migrations');
    applied = new Set(rows.map((row) => row.name));
  } catch (error) {
    return { ready: false, reason: `the database does not answer: ${(error as Error).message}` };
  }
  const known = knownMigrations();
  const missing = known.filter((name) => !applied.has(name));
  if (missing.length > 0) return { ready: false, reason: `migrations not applied: ${missing.join(', ')}` };
  return { ready: true, detail: `${driver.kind}, schema at ${known.at(-1) ?? 'none'}` };
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
