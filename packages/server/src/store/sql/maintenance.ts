import type { SqlDriver } from './driver.js';

interface TableSize {
  table: string;
  /** Pages when its statistics were last gathered (VACUUM or ANALYZE), -1 never. */
  relpages: number;
  /** Rows then (-1: never analyzed). */
  reltuples: number;
  /** Pages now. */
  pages: number;
}

/** Pages a table must have at least before its growth is worth new statistics. */
const MIN_PAGES = 8;

/**
 * Keep the planner's statistics of the store's tables current, as autovacuum would but at
 * once: a table that has grown to twice the pages it had when its statistics were gathered (or
 * that never had any) is analyzed now. Without this a burst of leases into a fresh database
 * plans the heartbeat as if its tables were empty — nested loops over thousands of rows, a
 * heartbeat of 10,000 leases running past the statement timeout — until autovacuum's next round
 * (a minute), and on PGlite, which has no autovacuum, forever. PGlite also has no background
 * VACUUM, so there the same growth (dead row versions left by renewals count) vacuums the table.
 * Several processes may run it side by side (`SKIP_LOCKED`). One catalog statement when nothing
 * is due; answers the tables it analyzed.
 */
export async function maintainStatistics(driver: SqlDriver): Promise<string[]> {
  const { rows } = await driver.query<TableSize>(
    `SELECT c.relname AS "table", c.relpages AS relpages, c.reltuples::float8 AS reltuples,
            (pg_relation_size(c.oid) / current_setting('block_size')::int)::int AS pages
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'leasehold' AND c.relkind = 'r'
      ORDER BY c.relname`,
  );
  const due = rows.filter((t) => t.pages >= MIN_PAGES && (t.reltuples < 0 || t.pages >= 2 * Math.max(t.relpages, MIN_PAGES / 2)));
  for (const { table } of due) {
    const name = `leasehold.${JSON.stringify(table)}`;
    await driver.query(driver.kind === 'pglite' ? `VACUUM (ANALYZE, SKIP_LOCKED) ${name}` : `ANALYZE (SKIP_LOCKED) ${name}`);
  }
  return due.map((t) => t.table);
}
