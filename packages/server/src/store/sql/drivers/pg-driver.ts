import type PgModule from 'pg';
import { inTransaction, type SqlConnection, type SqlDriver, type SqlResult, type SqlTransaction } from '../driver.js';
import { isReadOnlyRefusal } from '../failures.js';
import { loadPg } from './load-pg.js';

const pg = loadPg();

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
  /**
   * Called with each query message as it is sent (one round trip; a script of several
   * statements is one message): for statement counts and metrics.
   */
  onQuery?: ((text: string) => void) | undefined;
  /** Called with each message's round-trip time in seconds once it answers or fails (statement latency metrics). */
  onQueryDone?: ((seconds: number) => void) | undefined;
  /** Send statements with parameters as named (prepared) statements (default true). */
  preparedStatements?: boolean;
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
} as PgModule.CustomTypesConfig;

/** One `pg` result as the driver interface promises it (Buffer is a Uint8Array already). */
function resultOf<T>(raw: PgModule.QueryResult): SqlResult<T> {
  return { rows: raw.rows as T[], rowCount: raw.rowCount ?? raw.rows.length };
}

/** Every result of a message: a script of several statements answers one result each. */
function resultsOf(answer: PgModule.QueryResult | PgModule.QueryResult[]): SqlResult<Record<string, unknown>>[] {
  return (Array.isArray(answer) ? answer : [answer]).map((raw) => resultOf<Record<string, unknown>>(raw));
}

type Client = PgModule.Pool | PgModule.PoolClient;

/** Distinct statement texts prepared by name at most (the store's are a few dozen, all fixed). */
const MAX_PREPARED = 500;

/**
 * Sends messages, counting them for `onQuery`. A statement with parameters goes as a named
 * (prepared) statement, so each connection parses and plans it once rather than on every call
 * (PostgreSQL still re-plans per call where a generic plan would cost more).
 */
class Sender {
  readonly #names = new Map<string, string>();

  constructor(
    private readonly onQuery: ((text: string) => void) | undefined,
    private readonly prepare: boolean,
    private readonly onDone: ((seconds: number) => void) | undefined = undefined,
  ) {}

  #nameOf(text: string): string | undefined {
    let name = this.#names.get(text);
    if (name === undefined && this.prepare && this.#names.size < MAX_PREPARED) {
      name = `lh_${this.#names.size}`;
      this.#names.set(text, name);
    }
    return name;
  }

  /** One statement with parameters, or a script without: its (last) result. */
  async run<T>(client: Client, text: string, params?: readonly unknown[]): Promise<SqlResult<T>> {
    const all = await this.script(client, text, params);
    return all[all.length - 1] as SqlResult<T>;
  }

  /** Every result of the message. */
  async script(client: Client, text: string, params?: readonly unknown[]): Promise<SqlResult<Record<string, unknown>>[]> {
    this.onQuery?.(text);
    const onDone = this.onDone;
    const started = onDone === undefined ? 0 : performance.now();
    try {
      // No parameters: the simple protocol, which also takes a script of several statements.
      const raw =
        params === undefined || params.length === 0
          ? await client.query(text)
          : await client.query({ text, values: params as unknown[], name: this.#nameOf(text) });
      return resultsOf(raw as PgModule.QueryResult | PgModule.QueryResult[]);
    } finally {
      if (onDone !== undefined) onDone((performance.now() - started) / 1000);
    }
  }
}

/** A checked-out connection inside BEGIN … COMMIT. */
class PgTransaction implements SqlTransaction {
  /** Set when the connection reported an error (it died between statements): it is destroyed. */
  #broken: unknown;
  #done = false;
  readonly #onError = (error: unknown) => (this.#broken = error);

  constructor(
    private readonly client: PgModule.PoolClient,
    private readonly sender: Sender,
  ) {
    client.on('error', this.#onError);
  }

  /** True once the connection is known dead (it is destroyed, not reused). */
  get broken(): boolean {
    return this.#broken !== undefined;
  }

  async begin(script: string | undefined): Promise<SqlResult<Record<string, unknown>>[]> {
    try {
      const results = await this.sender.script(this.client, script === undefined ? 'BEGIN' : `BEGIN;${script}`);
      return results.slice(1);
    } catch (error) {
      this.#noteRefusal(error);
      await this.rollback();
      throw error;
    }
  }

  query<T>(text: string, params?: readonly unknown[]): Promise<SqlResult<T>> {
    if (this.#done) return Promise.reject(new Error('The transaction has ended.'));
    return this.sender.run<T>(this.client, text, params).catch((error: unknown) => {
      this.#noteRefusal(error);
      throw error;
    });
  }

  async commit(script?: string): Promise<void> {
    if (this.#done) throw new Error('The transaction has ended.');
    try {
      await this.sender.script(this.client, script === undefined ? 'COMMIT' : `${script};COMMIT`);
    } catch (error) {
      this.#noteRefusal(error);
      await this.rollback();
      throw error;
    }
    this.#release();
  }

  /**
   * A connection to a read-only node (a standby, or a primary a failover demoted) is of no use to a
   * writer: destroyed at release, so the pool's next connection reaches the current primary.
   */
  #noteRefusal(error: unknown): void {
    if (this.#broken === undefined && isReadOnlyRefusal(error)) this.#broken = error;
  }

  async rollback(): Promise<void> {
    if (this.#done) return;
    if (this.#broken === undefined) {
      this.#broken = await this.sender.script(this.client, 'ROLLBACK').then(
        () => undefined,
        (rollbackError: unknown) => rollbackError ?? true,
      );
    }
    this.#release();
  }

  #release(): void {
    if (this.#done) return;
    this.#done = true;
    this.client.removeListener('error', this.#onError);
    // A connection whose ROLLBACK failed or that broke is in an unknown state: destroy it.
    const broken = this.#broken;
    this.client.release(broken instanceof Error ? broken : broken === undefined ? undefined : true);
  }
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
    // JIT compiles big plans for tens of ms: a loss for statements that run in a few (measured: 20 of 45 ms).
    options: '-c search_path=leasehold -c jit=off',
    types,
  });
  // An idle connection that breaks (the database restarted) must not crash the process:
  // the pool drops it, and the next checkout opens a new one.
  pool.on('error', () => {});
  const sender = new Sender(options.onQuery, options.preparedStatements ?? true, options.onQueryDone);
  const driver: SqlDriver = {
    kind: 'postgres',
    query: (text, params) => sender.run(pool, text, params),
    transaction: (fn) => inTransaction(driver, fn),
    async begin(script) {
      // A pooled connection the database dropped while it sat idle (a restart) fails at BEGIN,
      // before anything ran: begin once more on a fresh one.
      for (let attempt = 0; ; attempt++) {
        const tx = new PgTransaction(await pool.connect(), sender);
        try {
          return { tx, results: await tx.begin(script) };
        } catch (error) {
          if (attempt > 0 || !tx.broken) throw error;
        }
      }
    },
    async connect(): Promise<SqlConnection> {
      const client = await pool.connect();
      let broken = false;
      const onError = () => (broken = true);
      client.on('error', onError);
      return {
        query: <T>(text: string, params?: readonly unknown[]) =>
          sender.run<T>(client, text, params).catch((error: unknown) => {
            if (isReadOnlyRefusal(error)) broken = true;
            throw error;
          }),
        release: (discard = false) => {
          client.removeListener('error', onError);
          client.release(broken || discard);
        },
      };
    },
    close: () => pool.end(),
    poolUsage: () => {
      // pg queues every checkout, even one an idle connection takes on the next tick: such a
      // checkout is not waiting, and that connection is not idle (else an idle pool reads 1 waiting).
      const handedOver = Math.min(pool.idleCount, pool.waitingCount);
      return { total: pool.totalCount, idle: pool.idleCount - handedOver, waiting: pool.waitingCount - handedOver, max: pool.options.max };
    },
  };
  return driver;
}
