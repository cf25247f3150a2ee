/** The rows of one statement and how many rows it touched. */
export interface SqlResult<T> {
  /** The rows returned (empty for statements without RETURNING). */
  readonly rows: T[];
  /** Rows returned, inserted, updated or deleted. */
  readonly rowCount: number;
}

/** One session of the database: a transaction, or a dedicated connection. */
export interface SqlSession {
  /** Run one statement with `$1…` parameters (none: a script of several statements may be sent). */
  query<T = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<SqlResult<T>>;
}

/** An open transaction on one connection: statements, then `commit` or `rollback` (exactly one). */
export interface SqlTransaction extends SqlSession {
  /**
   * Commit and give the connection back. `script` (statements without parameters) is sent
   * first in the same message, so it costs no round trip of its own. On failure the
   * transaction is rolled back, the connection released (destroyed when broken), and the
   * error thrown.
   */
  commit(script?: string): Promise<void>;
  /** Roll back and give the connection back; never throws; a no-op after `commit`. */
  rollback(): Promise<void>;
}

/** A transaction just begun, with the results of the script sent along with BEGIN. */
export interface BegunTransaction {
  readonly tx: SqlTransaction;
  /** One result per statement of the script (none without one). */
  readonly results: SqlResult<Record<string, unknown>>[];
}

/** A dedicated connection (the migrator holds one across its transaction). */
export interface SqlConnection extends SqlSession {
  /**
   * Give the connection back; `discard` closes it instead of keeping it for reuse (it reached a
   * read-only node: the pool's next connection should reach the current primary).
   */
  release(discard?: boolean): void;
}

/**
 * The tiny driver interface the SQL store is written against: PostgreSQL through `pg`, or PGlite
 * in process. `query` runs one autocommit statement on any connection; `transaction` runs `fn`
 * inside BEGIN … COMMIT on one connection (ROLLBACK when `fn` throws); `begin` opens one
 * without a callback (a unit of work that decides late whether it needs one). Values cross as: `bigint`
 * → `number`, `bytea` ↔ `Uint8Array`, `text[]` ↔ `string[]`, JSON kept as `text` by the store.
 * Driver errors surface raw; `classifyFailure` maps them.
 */
export interface SqlDriver extends SqlSession {
  /** Which database this is. */
  readonly kind: 'postgres' | 'pglite';
  /** Run `fn` in one transaction; commits when it resolves, rolls back when it throws. */
  transaction<T>(fn: (tx: SqlSession) => Promise<T>): Promise<T>;
  /**
   * Begin a transaction on one connection; `script` (statements without parameters) is sent
   * in the same message as BEGIN, so the transaction and its first statements cost one round trip.
   */
  begin(script?: string): Promise<BegunTransaction>;
  /** A dedicated connection, for the migrator. */
  connect(): Promise<SqlConnection>;
  /** Close every connection. */
  close(): Promise<void>;
  /** The pool's usage (PostgreSQL; PGlite has no pool). */
  poolUsage?(): { total: number; idle: number; waiting: number; max: number };
}

/** `transaction(fn)` over `begin()`: commit when `fn` resolves, roll back when it throws. */
export async function inTransaction<T>(driver: Pick<SqlDriver, 'begin'>, fn: (tx: SqlSession) => Promise<T>): Promise<T> {
  const { tx } = await driver.begin();
  let value: T;
  try {
    value = await fn(tx);
  } catch (error) {
    await tx.rollback();
    throw error;
  }
  await tx.commit();
  return value;
}
