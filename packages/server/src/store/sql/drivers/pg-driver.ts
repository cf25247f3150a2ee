import pg from 'pg';
import type { SqlConnection, SqlDriver, SqlResult, SqlSession } from '../driver.js';

/** How the PostgreSQL driver connects. */
export interface PgDriverOptions {
  /** A `postgres://` / `postgresql://` URL. */
  url: string;
  /** Connections in the pool (default 10). */
  poolSize?: number;
  /** `statement_timeout` in ms (default 5000): a statement running longer is cancelled (503). */
  statementTimeoutMs?: number;
  /** `lock_timeout` in ms (default 2000): a row lock waited for longer fails the unit (503). */
  lockTimeoutMs?: number;
  /**
   * `idle_in_transaction_session_timeout` in ms (default 10000): a process that died or hangs
   * inside a unit loses its transaction (and its in-flight idempotency lock) after this long.
   */
  idleInTransactionTimeoutMs?: number;
  /** How long to wait for a pool connection, ms (default 5000). */
  connectTimeoutMs?: number;
  /** `application_name` (default `leasehold-server`). */
  applicationName?: string;
}

const INT8 = 20;
const INT8_ARRAY = 1016;
/** `bigint` as a JS number: every bigint the store keeps (ms times, fences, ids) is below 2^53. */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8) return (value: string) => Number(value);
    if (oid === INT8_ARRAY) {
      const parseArray = pg.types.getTypeParser(INT8_ARRAY as unknown as Parameters<typeof pg.types.getTypeParser>[0], 'text') as (value: string) => string[];
      return (value: string) => parseArray(value).map(Number);
    }
    return pg.types.getTypeParser(oid, format ?? 'text');
  },
} as pg.CustomTypesConfig;

/** `pg` values back as the driver interface promises them (Buffer is a Uint8Array already). */
function result<T>(answer: pg.QueryResult | pg.QueryResult[]): SqlResult<T> {
  // A script of several statements answers one result each: the last one is the script's.
  const raw = Array.isArray(answer) ? (answer[answer.length - 1] as pg.QueryResult) : answer;
  return { rows: raw.rows as T[], rowCount: raw.rowCount ?? raw.rows.length };
}

function run<T>(client: pg.Pool | pg.PoolClient, text: string, params?: readonly unknown[]): Promise<SqlResult<T>> {
  // No parameters: the simple protocol, which also takes a script of several statements.
  const query = params === undefined || params.length === 0 ? client.query(text) : client.query(text, params as unknown[]);
  return query.then((raw) => result<T>(raw as pg.QueryResult | pg.QueryResult[]));
}

/**
 * PostgreSQL through `pg` (node-postgres): a pool whose every connection runs with the store's
 * `search_path`, statement, lock and idle-in-transaction timeouts.
 * @example
 * const driver = createPgDriver({ url: 'postgres://leasehold@db/leasehold', poolSize: 20 });
 */
export function createPgDriver(options: PgDriverOptions): SqlDriver {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
    application_name: options.applicationName ?? 'leasehold-server',
    statement_timeout: options.statementTimeoutMs ?? 5000,
    lock_timeout: options.lockTimeoutMs ?? 2000,
    idle_in_transaction_session_timeout: options.idleInTransactionTimeoutMs ?? 10_000,
    options: '-c search_path=leasehold',
    types,
  });
  // An idle connection that breaks (the database restarted) must not crash the process:
  // the pool drops it, and the next checkout opens a new one.
  pool.on('error', () => {});
  return {
    kind: 'postgres',
    query: (text, params) => run(pool, text, params),
    async transaction<T>(fn: (tx: SqlSession) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      // A checked-out connection that dies between statements (the database restarted, an
      // idle-in-transaction timeout) reports it here; its next statement fails, and it is destroyed.
      let broken: unknown;
      const onError = (error: unknown) => (broken = error);
      client.on('error', onError);
      try {
        await client.query('BEGIN');
        const tx: SqlSession = { query: (text, params) => run(client, text, params) };
        const value = await fn(tx);
        await client.query('COMMIT');
        return value;
      } catch (error) {
        if (broken === undefined) {
          broken = await client.query('ROLLBACK').then(
            () => undefined,
            (rollbackError: unknown) => rollbackError,
          );
        }
        throw error;
      } finally {
        client.removeListener('error', onError);
        // A connection whose ROLLBACK failed or that broke is in an unknown state: destroy it.
        client.release(broken instanceof Error ? broken : broken === undefined ? undefined : true);
      }
    },
    async connect(): Promise<SqlConnection> {
      const client = await pool.connect();
      let broken = false;
      const onError = () => (broken = true);
      client.on('error', onError);
      return {
        query: (text, params) => run(client, text, params),
        release: () => {
          client.removeListener('error', onError);
          client.release(broken);
        },
      };
    },
    close: () => pool.end(),
  };
}
