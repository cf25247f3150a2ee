import type { EngineStats } from '../../engine/index.js';
import type { SqlSession } from './driver.js';
import { one } from './sql-support.js';

/** Counts of leases, tombstones, messages and idempotency records at the database's now (one statement). */
export async function readStats(driver: SqlSession): Promise<EngineStats> {
  const { rows } = await driver.query<EngineStats>(
    `WITH c AS (SELECT leasehold.now_ms() AS now)
     SELECT
       (SELECT count(*)::int FROM leasehold.leases, c WHERE status = 'held' AND (expires_at IS NULL OR expires_at > c.now)) AS held,
       (SELECT count(*)::int FROM leasehold.leases, c WHERE status = 'queued' AND expires_at > c.now) AS queued,
       (SELECT count(*)::int FROM leasehold.leases, c
         WHERE (status IN ('lost', 'released') AND ended_at + 600000 > c.now)
            OR (status IN ('held', 'queued') AND expires_at <= c.now AND expires_at + 600000 > c.now)) AS tombstones,
       (SELECT count(*)::int FROM leasehold.leases WHERE status IN ('held', 'queued') AND expires_at IS NOT NULL) AS "heapSize",
       (SELECT coalesce(max(last_value), 0)::bigint FROM pg_sequences WHERE schemaname = 'leasehold') AS fence,
       (SELECT count(*)::int FROM leasehold.messages) AS messages,
       (SELECT count(*)::int FROM leasehold.idempotency_records, c WHERE expires_at > c.now) AS "idempotencyRecords"
     FROM c`,
  );
  return one(rows);
}
