/**
 * What a PostgreSQL workload writes, read from the server itself: WAL bytes between two points
 * (`pg_current_wal_insert_lsn()`, every record inserted, flushed or not) and a table's updates
 * and HOT updates (`pg_stat_user_tables`). A backend reports its table counts only from time to
 * time, and always when it exits, so `settledUpdates` first waits until every other connection
 * to the database has gone (bounded): close the pools whose writes you count before reading.
 */
import type pg from 'pg';

/** A table's update counters. */
export interface TableUpdates {
  updates: number;
  hot: number;
}

/** The current WAL insert position, in bytes. */
export async function walPosition(admin: pg.Client): Promise<bigint> {
  const { rows } = await admin.query<{ at: string }>(`SELECT (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::text AS at`);
  return BigInt((rows[0] as { at: string }).at.split('.')[0] as string);
}

/** WAL bytes `fn` wrote (nothing else may write meanwhile). */
export async function walOf(admin: pg.Client, fn: () => Promise<unknown>): Promise<number> {
  const before = await walPosition(admin);
  await fn();
  return Number((await walPosition(admin)) - before);
}

/**
 * Updates and HOT updates of each table (`schema.table`) as reported by every connection that
 * has closed: waits (up to 10 s) for the database's other connections to end first.
 */
export async function settledUpdates(admin: pg.Client, tables: readonly string[]): Promise<Map<string, TableUpdates>> {
  for (let i = 0; i < 200; i++) {
    const { rows } = await admin.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'",
    );
    if ((rows[0] as { n: number }).n === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await admin.query('SELECT pg_stat_force_next_flush()');
  await admin.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await admin.query<{ name: string; updates: string; hot: string }>(
    `SELECT schemaname || '.' || relname AS name, n_tup_upd::text AS updates, n_tup_hot_upd::text AS hot
       FROM pg_stat_user_tables WHERE schemaname || '.' || relname = ANY($1)`,
    [tables],
  );
  return new Map(rows.map((r) => [r.name, { updates: Number(r.updates), hot: Number(r.hot) }]));
}

/** The HOT share of the updates between two readings, in percent. */
export function hotShare(before: TableUpdates | undefined, after: TableUpdates | undefined): number {
  const updates = (after?.updates ?? 0) - (before?.updates ?? 0);
  const hot = (after?.hot ?? 0) - (before?.hot ?? 0);
  return updates === 0 ? 0 : (100 * hot) / updates;
}
