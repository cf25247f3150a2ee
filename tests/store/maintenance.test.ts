/**
 * The SQL store keeps its tables' planner statistics current itself (the background sweep calls
 * `maintain()`): a table that grew to twice its analyzed size — a burst of leases into a fresh
 * database — is analyzed at once rather than at autovacuum's next round (PostgreSQL) or never
 * (PGlite has no autovacuum). Nothing is done when nothing grew.
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { SqlStore, createPgDriver, createPgliteDriver, openPglite } from '../../packages/server/src/store/index.js';
import { createTestDatabase } from '../support/postgres-database.js';

const BURST = `INSERT INTO leasehold.leases (claim_id, kind, token_hash, account_id, credential_id, status, expires_at)
  SELECT 'clm_burst' || g, 'task', '\\x00'::bytea, 'acct_m', 'cred_m', 'held', 1 FROM generate_series(1, 3000) g`;
const ROWS = `SELECT reltuples::float8 AS n FROM pg_class WHERE oid = 'leasehold.leases'::regclass`;

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function postgres(): Promise<{ store: SqlStore; sql: (text: string) => Promise<{ n: number }[]> }> {
  const db = await createTestDatabase();
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  const store = await SqlStore.open(createPgDriver({ url: db.url, poolSize: 2 }), { sweepIntervalMs: 0 });
  cleanups.push(db.drop, () => client.end(), () => store.close());
  return { store, sql: async (text) => (await client.query(text)).rows };
}

async function pglite(): Promise<{ store: SqlStore; sql: (text: string) => Promise<{ n: number }[]> }> {
  const db = await openPglite();
  const store = await SqlStore.open(await createPgliteDriver({ database: db }), { sweepIntervalMs: 0 });
  cleanups.push(() => store.close());
  return { store, sql: async (text) => (await db.query<{ n: number }>(text)).rows };
}

describe.each([
  ['postgres', postgres],
  ['pglite', pglite],
] as const)('statistics maintenance — %s', (_kind, open) => {
  it('analyzes a table that grew, once, and then nothing until it grows again', async () => {
    const { store, sql } = await open();
    await store.maintain();
    expect(await store.maintain()).toEqual([]);
    await sql(BURST);
    expect(await store.maintain()).toContain('leases');
    expect((await sql(ROWS))[0]?.n).toBeGreaterThanOrEqual(2900);
    expect(await store.maintain()).toEqual([]);
  }, 30_000);
});
