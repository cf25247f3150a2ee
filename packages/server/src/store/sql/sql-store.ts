import {
  EngineError,
  IDEMPOTENCY_TTL_MS,
  cryptoRandom,
  type AuthResult,
  type Credential,
  type EngineStats,
  type KeyConfig,
  type RandomSource,
  type RateDecision,
} from '../../engine/index.js';
import type {
  ExecuteResult,
  MaybePromise,
  OperationOutcome,
  OperationRequest,
  Operations,
  Store,
  StoreControls,
} from '../operations.js';
import { openAnswer, recordAddress, sealAnswer } from './answer-seal.js';
import { sqlControls } from './controls.js';
import { authenticate, registerKeys, takeToken } from './credentials.js';
import type { SqlDriver, SqlSession } from './driver.js';
import { asUnavailable } from './failures.js';
import { sqlHeartbeat } from './heartbeat.js';
import { migrate } from './migrate.js';
import { sqlSpaceClaims } from './space-claims.js';
import { sqlSpools } from './spools.js';
import { one, type UnitContext } from './sql-support.js';
import { sweepOnce } from './sweep.js';
import { listTasks } from './task-list.js';
import { sqlTasks } from './tasks.js';
import { textCodecSession } from './text-codec.js';

/** How a SQL store runs. */
export interface SqlStoreOptions {
  /** `'manual'`: the database's clock moves only through `advanceClock` (default `'real'`). */
  clock?: 'real' | 'manual';
  /** Where a manual clock starts (epoch ms; default 2026-01-01T00:00:00Z), when it is first set manual. */
  startTime?: number;
  /** API keys to register (default: none beyond those already in the database). */
  keys?: readonly KeyConfig[];
  /** Randomness for ids and tokens (default `node:crypto`). */
  random?: RandomSource;
  /** Milliseconds between background sweeps (default 1000; 0: none, call `sweep()` yourself). */
  sweepIntervalMs?: number;
  /** Rows each sweep step handles at most (default 500). */
  sweepBatch?: number;
  /** Apply pending migrations first (default true). */
  migrate?: boolean;
}

/** A failure inside `run`: the operation refused (or broke); encoded, never a store outage by itself. */
class Refusal {
  constructor(readonly error: unknown) {}
}

/**
 * The SQL store, one code path for PostgreSQL and PGlite behind `SqlDriver`. Every API operation
 * is one transaction; everything is decided in the database (row locks on keys and tasks,
 * `SKIP LOCKED` receives, per-account fence sequences, transaction-scoped advisory locks for
 * in-flight idempotency records, the clock row), so several processes on one database agree.
 * @example
 * const store = await SqlStore.open(createPgDriver({ url }), { keys: DEFAULT_KEYS });
 * @see docs/storage.md
 */
export class SqlStore implements Store {
  /** `postgres` or `pglite`, after the driver. */
  readonly kind: 'postgres' | 'pglite';
  /** The test levers (state in the database). */
  readonly controls: StoreControls;
  readonly #driver: SqlDriver;
  readonly #random: RandomSource;
  readonly #sweepBatch: number;
  /** Idempotency records this process has in flight (another process's are the advisory locks). */
  readonly #inFlight = new Set<string>();
  #timer: NodeJS.Timeout | undefined;
  #sweeping: Promise<unknown> | undefined;
  /** What `approximateNow` adds to `Date.now()` (learned whenever the store reads its clock). */
  #skew = 0;
  #manualNow: number | undefined;

  private constructor(driver: SqlDriver, options: SqlStoreOptions) {
    this.kind = driver.kind;
    this.#driver = driver;
    this.#random = options.random ?? cryptoRandom;
    this.#sweepBatch = options.sweepBatch ?? 500;
    this.controls = this.#wrapControls(
      sqlControls({ driver, unit: (fn) => this.#unit(fn), sweepAll: () => this.sweepAll() }),
    );
  }

  /** Open a store over `driver`: migrate, register keys, set the clock, start the sweep. */
  static async open(driver: SqlDriver, options: SqlStoreOptions = {}): Promise<SqlStore> {
    if (options.migrate !== false) await migrate(driver);
    const store = new SqlStore(driver, options);
    if (options.keys !== undefined) await registerKeys(driver, options.keys);
    const manual = options.clock === 'manual';
    await driver.query(
      `UPDATE leasehold.clock
          SET manual_ms = CASE WHEN $1 AND NOT manual THEN $2 ELSE manual_ms END,
              offset_ms = CASE WHEN manual = $1 THEN offset_ms ELSE 0 END,
              manual = $1`,
      [manual, options.startTime ?? Date.UTC(2026, 0, 1)],
    );
    await store.now();
    const interval = options.sweepIntervalMs ?? 1000;
    if (interval > 0) {
      store.#timer = setInterval(() => {
        if (store.#sweeping === undefined) store.#sweeping = store.sweepAll().catch(() => 0).finally(() => (store.#sweeping = undefined));
      }, interval);
      store.#timer.unref();
    }
    return store;
  }

  /** Register (more) API keys. */
  async addKeys(keys: readonly KeyConfig[]): Promise<void> {
    await this.#guard(() => registerKeys(this.#driver, keys));
  }

  /** Authenticate a raw `Authorization` header (one statement). */
  authenticate(header: string | null | undefined): Promise<AuthResult> {
    return this.#guard(() => authenticate(this.#driver, header));
  }

  /** Take one request from the credential's rate limit (one statement when it has one). */
  checkRateLimit(credential: Credential): MaybePromise<RateDecision> {
    if (credential.rateLimitPerSecond === null) return { allowed: true };
    return this.#guard(() => takeToken(this.#driver, credential));
  }

  /** One API operation as one transaction (see `Store.execute` and docs/storage.md). */
  async execute<R, A>(
    request: OperationRequest<A>,
    run: (ops: Operations) => MaybePromise<R>,
    encode: (outcome: OperationOutcome<R>) => A,
  ): Promise<ExecuteResult<A>> {
    const idempotency = request.idempotency;
    const credential = request.credential;
    if (idempotency !== undefined && credential !== undefined) {
      return this.#idempotent(request, credential, idempotency.key, idempotency.fingerprint, run, encode);
    }
    try {
      const answer = await this.#driver.transaction(async (tx) => {
        let value: R;
        try {
          value = await run(this.#operations(tx));
        } catch (error) {
          throw new Refusal(error);
        }
        const encoded = encode({ ok: true, value });
        if (request.beforeCommit !== undefined) await request.beforeCommit();
        return encoded;
      });
      return { answer, replayed: false };
    } catch (error) {
      if (!(error instanceof Refusal)) throw asUnavailable(error) ?? error;
      const outage = asUnavailable(error.error);
      if (outage !== undefined) throw outage;
      return { answer: encode({ ok: false, error: error.error }), replayed: false };
    }
  }

  async #idempotent<R, A>(
    request: OperationRequest<A>,
    credential: Credential,
    key: string,
    fingerprint: string,
    run: (ops: Operations) => MaybePromise<R>,
    encode: (outcome: OperationOutcome<R>) => A,
  ): Promise<ExecuteResult<A>> {
    const address = recordAddress(credential.credentialId, key);
    const local = address.hash.toString('hex');
    if (this.#inFlight.has(local)) throw inFlight();
    this.#inFlight.add(local);
    try {
      return await this.#driver.transaction(async (tx) => {
        const begin = one(
          (
            await tx.query<{ locked: boolean; fingerprint: string | null; answer: Uint8Array | null }>(
              'SELECT locked, fingerprint, answer FROM leasehold.idempotency_begin($1, $2::bigint)',
              [address.hash, address.lock],
            )
          ).rows,
        );
        if (!begin.locked) throw inFlight();
        if (begin.fingerprint !== null && begin.answer !== null) {
          if (begin.fingerprint !== fingerprint) {
            throw new EngineError(
              'idempotency_key_reused',
              'This Idempotency-Key was used for a different request; use a new key.',
              'Idempotency-Key',
            );
          }
          return { answer: openAnswer<A>(credential.credentialId, key, begin.answer), replayed: true };
        }
        await tx.query('SAVEPOINT operation');
        let outcome: OperationOutcome<R>;
        try {
          outcome = { ok: true, value: await run(this.#operations(tx)) };
        } catch (error) {
          if (asUnavailable(error) !== undefined) throw error;
          await tx.query('ROLLBACK TO SAVEPOINT operation');
          outcome = { ok: false, error };
        }
        const answer = encode(outcome);
        if (request.isStorable(answer)) {
          await tx.query(
            `INSERT INTO leasehold.idempotency_records (record_hash, fingerprint, answer, created_at, expires_at)
             SELECT $1, $2, $3, n.now, n.now + $4::bigint FROM (SELECT leasehold.now_ms() AS now) n
             ON CONFLICT (record_hash) DO UPDATE
                SET fingerprint = EXCLUDED.fingerprint, answer = EXCLUDED.answer,
                    created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at`,
            [address.hash, fingerprint, sealAnswer(credential.credentialId, key, answer), IDEMPOTENCY_TTL_MS],
          );
        }
        if (request.beforeCommit !== undefined) await request.beforeCommit();
        return { answer, replayed: false };
      });
    } catch (error) {
      throw asUnavailable(error) ?? error;
    } finally {
      this.#inFlight.delete(local);
    }
  }

  #operations(raw: SqlSession): Operations {
    const tx = textCodecSession(raw);
    const unit: UnitContext = { tx, random: this.#random };
    return {
      claims: sqlSpaceClaims(unit),
      tasks: { ...sqlTasks(unit), list: (params) => listTasks(tx, params) },
      spools: sqlSpools(unit),
      heartbeat: sqlHeartbeat(unit),
    };
  }

  /** The database's time (its clock plus the manual offset). */
  async now(): Promise<number> {
    const row = await this.#guard(async () =>
      one((await this.#driver.query<{ now: number; manual: boolean }>('SELECT leasehold.now_ms() AS now, manual FROM leasehold.clock')).rows),
    );
    this.#learn(row.now, row.manual);
    return row.now;
  }

  /** The store's time as last learned, without a statement (for `Date` headers). */
  approximateNow(): number {
    return this.#manualNow ?? Date.now() + this.#skew;
  }

  #learn(now: number, manual: boolean): void {
    this.#manualNow = manual ? now : undefined;
    this.#skew = manual ? 0 : now - Date.now();
  }

  /** Counts of leases, tombstones, messages and idempotency records (one statement). */
  stats(): Promise<EngineStats> {
    return this.#guard(async () => {
      const { rows } = await this.#driver.query<EngineStats>(
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
    });
  }

  /** One bounded sweep pass (see `sweepOnce`); answers whether more is due. */
  sweep(): Promise<{ changed: number; more: boolean }> {
    return this.#unit((tx) => sweepOnce(tx, this.#sweepBatch));
  }

  /** Sweep until nothing due is left (at most 1,000 passes); answers the rows changed. */
  async sweepAll(): Promise<number> {
    let changed = 0;
    for (let pass = 0; pass < 1000; pass++) {
      const result = await this.sweep();
      changed += result.changed;
      if (!result.more) break;
    }
    return changed;
  }

  /** Stop the sweep and close the driver (the pool, or the embedded database). */
  async close(): Promise<void> {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#sweeping;
    await this.#driver.close();
  }

  #unit<T>(fn: (tx: SqlSession) => Promise<T>): Promise<T> {
    return this.#guard(() => this.#driver.transaction(fn));
  }

  async #guard<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      throw asUnavailable(error) ?? error;
    }
  }

  #wrapControls(controls: StoreControls): StoreControls {
    const learnAfter = async <T>(value: Promise<T>): Promise<T> => {
      const result = await value;
      await this.now();
      return result;
    };
    return { ...controls, advanceClock: (ms) => learnAfter(Promise.resolve(controls.advanceClock(ms))) };
  }
}

function inFlight(): EngineError {
  return new EngineError('idempotency_in_flight', 'A request with this Idempotency-Key is still running; retry shortly.', 'Idempotency-Key');
}
