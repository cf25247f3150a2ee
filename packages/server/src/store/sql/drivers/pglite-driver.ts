import { PGlite, types } from '@electric-sql/pglite';
import type { SqlConnection, SqlDriver, SqlResult, SqlSession } from '../driver.js';

/** How the embedded driver opens its database. */
export interface PgliteDriverOptions {
  /** A directory holding the database (created when missing); `undefined`: in memory only. */
  dataDir?: string | undefined;
}

/**
 * PGlite (PostgreSQL compiled to WebAssembly) in this process: one session, so units of work run
 * one at a time, queued by a promise chain (`connect` and `transaction` hold it until they end).
 * @example
 * const driver = await createPgliteDriver({ dataDir: './data' });
 */
export async function createPgliteDriver(options: PgliteDriverOptions = {}): Promise<SqlDriver> {
  const db = new PGlite({
    dataDir: options.dataDir,
    parsers: { [types.INT8]: (value: string) => Number(value) },
  });
  await db.waitReady;
  await db.exec('CREATE SCHEMA IF NOT EXISTS leasehold; SET search_path = leasehold');
  let tail: Promise<unknown> = Promise.resolve();
  /** Wait for the session, answer a function that gives it back. */
  const acquire = (): Promise<() => void> => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const turn = tail.then(() => release);
    tail = tail.then(() => released);
    return turn;
  };
  const run = async <T>(text: string, params?: readonly unknown[]): Promise<SqlResult<T>> => {
    if (params === undefined || params.length === 0) {
      const results = await db.exec(text);
      const last = results[results.length - 1];
      return { rows: (last?.rows ?? []) as T[], rowCount: last?.affectedRows ?? last?.rows.length ?? 0 };
    }
    const raw = await db.query<T>(text, params as unknown[]);
    return { rows: raw.rows, rowCount: raw.affectedRows ?? raw.rows.length };
  };
  const session: SqlSession = { query: run };
  return {
    kind: 'pglite',
    async query(text, params) {
      const release = await acquire();
      try {
        return await run(text, params);
      } finally {
        release();
      }
    },
    async transaction<T>(fn: (tx: SqlSession) => Promise<T>): Promise<T> {
      const release = await acquire();
      try {
        await db.exec('BEGIN');
        try {
          const value = await fn(session);
          await db.exec('COMMIT');
          return value;
        } catch (error) {
          await db.exec('ROLLBACK');
          throw error;
        }
      } finally {
        release();
      }
    },
    async connect(): Promise<SqlConnection> {
      const release = await acquire();
      return { query: run, release };
    },
    async close() {
      const release = await acquire();
      try {
        await db.close();
      } finally {
        release();
      }
    },
  };
}
