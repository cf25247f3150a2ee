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

/** A dedicated connection (the migrator holds one across its transaction). */
export interface SqlConnection extends SqlSession {
  /** Give the connection back. */
  release(): void;
}

/**
 * The tiny driver interface the SQL store is written against: PostgreSQL through `pg`, or PGlite
 * in process. `query` runs one autocommit statement on any connection; `transaction` runs `fn`
 * inside BEGIN … COMMIT on one connection (ROLLBACK when `fn` throws). Values cross as: `bigint`
 * → `number`, `bytea` ↔ `Uint8Array`, `text[]` ↔ `string[]`, JSON kept as `text` by the store.
 * Driver errors surface raw; `classifyFailure` maps them.
 */
export interface SqlDriver extends SqlSession {
  /** Which database this is. */
  readonly kind: 'postgres' | 'pglite';
  /** Run `fn` in one transaction; commits when it resolves, rolls back when it throws. */
  transaction<T>(fn: (tx: SqlSession) => Promise<T>): Promise<T>;
  /** A dedicated connection, for the migrator. */
  connect(): Promise<SqlConnection>;
  /** Close every connection. */
  close(): Promise<void>;
}
