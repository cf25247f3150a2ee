import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { PGlite, types } from '@electric-sql/pglite';
import { lockDataDir, type DataDirLock } from './data-dir-lock.js';
import { prepareDataDir, restrictDataDir } from './embedded-directory.js';
import { inlineParams, sqlLiteral } from './sql-literals.js';
import { inTransaction as runTransaction, type SqlConnection, type SqlDriver, type SqlResult, type SqlTransaction } from '../driver.js';

/** How the embedded driver opens its database. */
export interface PgliteDriverOptions {
  /**
   * A directory holding the database (created owner-only when missing); `undefined`: in memory
   * only. The driver holds the directory's exclusive lock (`leasehold.pid`, see `lockDataDir`)
   * until `close()`, and keeps its files owner-only (0700 / 0600).
   */
  dataDir?: string | undefined;
  /** An instance opened by `openPglite` to use instead of opening one (the driver closes it). */
  database?: PGlite | undefined;
  /** Called with each query as it is run (statement counts and metrics; see `PgDriverOptions.onQuery`). */
  onQuery?: ((text: string) => void) | undefined;
}

/** Distinct statement texts prepared at most (the store's are a few dozen, all fixed). */
const MAX_PREPARED = 500;
/** Drivers opened in this process: each names its prepared statements apart (several may share an instance). */
let drivers = 0;

/** A PGlite instance the way the store reads values (`bigint` as a JS number), ready to use. */
export async function openPglite(dataDir?: string): Promise<PGlite> {
  const db = new PGlite({ dataDir, parsers: { [types.INT8]: (value: string) => Number(value) } });
  await db.waitReady;
  return db;
}

/** Opens a directory's database under its lock (released again if the open fails). */
async function openLocked(dataDir: string): Promise<{ db: PGlite; lock: DataDirLock; dir: string }> {
  const dir = resolve(dataDir);
  prepareDataDir(dir);
  const lock = lockDataDir(realpathSync(dir));
  try {
    const db = await openPglite(dir);
    restrictDataDir(dir);
    return { db, lock, dir };
  } catch (error) {
    lock.release();
    throw error;
  }
}

/**
 * PGlite (PostgreSQL compiled to WebAssembly) in this process: one session, so units of work run
 * one at a time, queued by a promise chain (`connect` and `transaction` hold it until they end).
 * Statements with parameters are prepared once and sent as `EXECUTE` with literal arguments over
 * the simple protocol, a fraction of the cost of PGlite's extended-protocol `query`.
 * @example
 * const driver = await createPgliteDriver({ dataDir: './data' });
 */
export async function createPgliteDriver(options: PgliteDriverOptions = {}): Promise<SqlDriver> {
  const opened = options.database === undefined && options.dataDir !== undefined ? await openLocked(options.dataDir) : undefined;
  const db = options.database ?? opened?.db ?? (await openPglite());
  try {
    await db.exec('CREATE SCHEMA IF NOT EXISTS leasehold; SET search_path = leasehold; SET standard_conforming_strings = on');
  } catch (error) {
    if (opened !== undefined) await db.close().finally(() => opened.lock.release());
    throw error;
  }
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
  const send = async (text: string): Promise<Results> => {
    const results = await db.exec(text);
    return results.map((r) => ({ rows: r.rows as Record<string, unknown>[], rowCount: r.affectedRows ?? r.rows.length }));
  };
  const exec = (text: string): Promise<Results> => {
    onQuery?.(text);
    return send(text);
  };
  const last = <T>(results: Results) => (results[results.length - 1] ?? { rows: [], rowCount: 0 }) as SqlResult<T>;
  /** Statement texts prepared (`PREPARE lh_n`), or `null`: sent with its parameters inlined. */
  const prepared = new Map<string, string | null>();
  const prefix = `lh${drivers++}_`;
  let inTransaction = false;
  const prepare = async (text: string): Promise<string | null> => {
    if (prepared.size >= MAX_PREPARED) return null;
    const name = `${prefix}${prepared.size}`;
    try {
      // A failed PREPARE would abort an open transaction: inside one it runs under a savepoint.
      await send(inTransaction ? `SAVEPOINT lh_prepare;PREPARE ${name} AS ${text};RELEASE SAVEPOINT lh_prepare` : `PREPARE ${name} AS ${text}`);
      prepared.set(text, name);
      return name;
    } catch {
      if (inTransaction) await send('ROLLBACK TO SAVEPOINT lh_prepare;RELEASE SAVEPOINT lh_prepare');
      prepared.set(text, null);
      return null;
    }
  };
  /** A statement with parameters: `EXECUTE` of its prepared form with literals (see `sql-literals.ts`). */
  const run = async <T>(text: string, params?: readonly unknown[]): Promise<SqlResult<T>> => {
    if (params === undefined || params.length === 0) return last<T>(await exec(text));
    onQuery?.(text);
    let name = prepared.get(text);
    if (name === undefined) name = await prepare(text);
    return last<T>(await send(name === null ? inlineParams(text, params) : `EXECUTE ${name}(${params.map(sqlLiteral).join(',')})`));
  };
  /** The extended protocol, for the migrator's own connection (its statements run once). */
  const runExtended = async <T>(text: string, params?: readonly unknown[]): Promise<SqlResult<T>> => {
    if (params === undefined || params.length === 0) return last<T>(await exec(text));
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
    transaction: (fn) => runTransaction(driver, fn),
    async begin(script) {
      const release = await acquire();
      let done = false;
      const finished = () => {
        done = true;
        inTransaction = false;
        release();
      };
      const end = async (text: string) => {
        if (done) return;
        try {
          await exec(text);
        } finally {
          finished();
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
          finished();
        },
        rollback: () => end('ROLLBACK').catch(() => {}),
      };
      try {
        inTransaction = true;
        const results = await exec(script === undefined ? 'BEGIN' : `BEGIN;${script}`);
        return { tx, results: results.slice(1) };
      } catch (error) {
        await tx.rollback();
        throw error;
      }
    },
    async connect(): Promise<SqlConnection> {
      const release = await acquire();
      // The migrator's connection creates relations: PGlite writes some new files 0666, so the
      // modes are taken back when it ends (the directory's own 0700 keeps them private meanwhile).
      const restrictThenRelease = () => {
        try {
          if (opened !== undefined) restrictDataDir(opened.dir);
        } finally {
          release();
        }
      };
      return { query: runExtended, release: restrictThenRelease };
    },
    async close() {
      const release = await acquire();
      try {
        await db.close();
        // Closing checkpoints, and PGlite rewrites files 0666 then: owner-only again before the lock goes.
        if (opened !== undefined) restrictDataDir(opened.dir);
      } finally {
        opened?.lock.release();
        release();
      }
    },
  };
  return driver;
}
