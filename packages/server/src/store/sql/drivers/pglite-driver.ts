import { PGlite, types } from '@electric-sql/pglite';
import { inTransaction, type SqlConnection, type SqlDriver, type SqlResult, type SqlTransaction } from '../driver.js';

/** How the embedded driver opens its database. */
export interface PgliteDriverOptions {
  /** A directory holding the database (created when missing); `undefined`: in memory only. */
  dataDir?: string | undefined;
  /** An instance opened by `openPglite` to use instead of opening one (the driver closes it). */
  database?: PGlite | undefined;
  /** Called with each query as it is run (statement counts and metrics; see `PgDriverOptions.onQuery`). */
  onQuery?: ((text: string) => void) | undefined;
}

/** A PGlite instance the way the store reads values (`bigint` as a JS number), ready to use. */
export async function openPglite(dataDir?: string): Promise<PGlite> {
  const db = new PGlite({ dataDir, parsers: { [types.INT8]: (value: string) => Number(value) } });
  await db.waitReady;
  return db;
}

/**
 * PGlite (PostgreSQL compiled to WebAssembly) in this process: one session, so units of work run
 * one at a time, queued by a promise chain (`connect` and `transaction` hold it until they end).
 * @example
 * const driver = await createPgliteDriver({ dataDir: './data' });
 */
export async function createPgliteDriver(options: PgliteDriverOptions = {}): Promise<SqlDriver> {
  const db = options.database ?? (await openPglite(options.dataDir));
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
  const onQuery = options.onQuery;
  type Results = SqlResult<Record<string, unknown>>[];
  const exec = async (text: string): Promise<Results> => {
    onQuery?.(text);
    const results = await db.exec(text);
    return results.map((r) => ({ rows: r.rows as Record<string, unknown>[], rowCount: r.affectedRows ?? r.rows.length }));
  };
  const run = async <T>(text: string, params?: readonly unknown[]): Promise<SqlResult<T>> => {
    if (params === undefined || params.length === 0) {
      const results = await exec(text);
      return (results[results.length - 1] ?? { rows: [], rowCount: 0 }) as SqlResult<T>;
    }
    onQuery?.(text);
    const raw = await db.query<T>(text, params as unknown[]);
    return { rows: raw.rows, rowCount: raw.affectedRows ?? raw.rows.length };
  };
  const driver: SqlDriver = {
    kind: 'pglite',
    async query(text, params) {
      const release = await acquire();
      try {
        return await run(text, params);
      } finally {
        release();
      }
    },
    transaction: (fn) => inTransaction(driver, fn),
    async begin(script) {
      const release = await acquire();
      let done = false;
      const end = async (text: string) => {
        if (done) return;
        done = true;
        try {
          await exec(text);
        } finally {
          release();
        }
      };
      const tx: SqlTransaction = {
        query: (text, params) => (done ? Promise.reject(new Error('The transaction has ended.')) : run(text, params)),
        async commit(commitScript) {
          if (done) throw new Error('The transaction has ended.');
          try {
            await exec(commitScript === undefined ? 'COMMIT' : `${commitScript};COMMIT`);
          } catch (error) {
            await end('ROLLBACK').catch(() => {});
            throw error;
          }
          done = true;
          release();
        },
        rollback: () => end('ROLLBACK').catch(() => {}),
      };
      try {
        const results = await exec(script === undefined ? 'BEGIN' : `BEGIN;${script}`);
        return { tx, results: results.slice(1) };
      } catch (error) {
        await tx.rollback();
        throw error;
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
  return driver;
}
