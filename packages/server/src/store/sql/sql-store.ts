import {
  cryptoRandom,
  type AuthResult,
  type Credential,
  type EngineStats,
  type KeyConfig,
  type LeaseKind,
  type RandomSource,
  type RateDecision,
} from '../../engine/index.js';
import type {
  ExecuteResult,
  FaultRuleTable,
  MaybePromise,
  OperationOutcome,
  OperationRequest,
  Operations,
  PoolUsage,
  Readiness,
  Store,
  StoreControls,
} from '../operations.js';
import { recordAddress } from './answer-seal.js';
import { sqlControls } from './controls.js';
import { clearingCredentialCache } from './clearing-controls.js';
import { sqlFaultRules } from './fault-rules.js';
import { apiKeyOf, unknownKey } from '../../engine/credentials.js';
import { CredentialCache } from './credential-cache.js';
import { judgeKey, readKey, registerKeys, takeToken } from './credentials.js';
import { adoptKeySet } from './key-set.js';
import type { SqlDriver, SqlSession } from './driver.js';
import { asUnavailable } from './failures.js';
import { maintainStatistics } from './maintenance.js';
import { migrate } from './migrate.js';
import { digest, one, type UnitContext } from './sql-support.js';
import { sweepOnce } from './sweep.js';
import { readHeldByKind, readReadiness } from './readiness.js';
import { readStats } from './stats.js';
import { textCodecSession, textCodecSingle } from './text-codec.js';
import { OperationUnit, inFlight, type UnitRecord } from './unit.js';
import { LazyOperations } from './unit-operations.js';
import type { SqlStoreOptions } from './sql-store-options.js';

export type { SqlStoreOptions } from './sql-store-options.js';

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
  /**
   * Armed fault rules, in the database on PostgreSQL (every process sharing it sees them);
   * `undefined` on PGlite: an embedded directory is one process's, so that process's memory is
   * the deployment, and a fault check never waits for the embedded database's one connection
   * (which a request delayed by a latency fault holds until it commits).
   */
  readonly faultRules: FaultRuleTable | undefined;
  readonly #driver: SqlDriver;
  readonly #random: RandomSource;
  readonly #sweepBatch: number;
  /** Idempotency records this process has in flight (another process's are the advisory locks). */
  readonly #inFlight = new Set<string>();
  #timer: NodeJS.Timeout | undefined;
  /** The background sweep's pass in progress (the next tick skips while it runs). */
  #sweeping: Promise<unknown> | undefined;
  /** What `approximateNow` adds to `Date.now()` (learned whenever the store reads its clock). */
  #skew = 0;
  #manualNow: number | undefined;
  readonly #credentials: CredentialCache;

  private constructor(driver: SqlDriver, options: SqlStoreOptions) {
    this.kind = driver.kind;
    this.#driver = driver;
    this.#random = options.random ?? cryptoRandom;
    this.#sweepBatch = options.sweepBatch ?? 500;
    this.#credentials = new CredentialCache({
      maxAgeMs: options.credentialCacheMs ?? 1000,
      maxEntries: options.credentialCacheEntries ?? 10_000,
      now: options.cacheClock ?? (() => performance.now()),
    });
    const faults = sqlFaultRules(driver);
    this.faultRules =
      driver.kind === 'pglite'
        ? undefined
        : {
            add: (rule, times) => this.#guard(() => faults.add(rule, times)),
            clear: () => this.#guard(() => faults.clear()),
            list: () => this.#guard(() => faults.list()),
            hit: (ids) => this.#guard(() => faults.hit(ids)),
          };
    this.controls = clearingCredentialCache(
      sqlControls({ driver, unit: (fn) => this.#unit(fn), sweepAll: () => this.sweepAll() }),
      () => this.#credentials.clear(),
      () => this.now(),
    );
  }

  /** Open a store over `driver`: migrate, adopt the key set (`adoptKeySet`), set the clock, start the sweep. */
  static async open(driver: SqlDriver, options: SqlStoreOptions = {}): Promise<SqlStore> {
    if (options.migrate !== false) await migrate(driver);
    const store = new SqlStore(driver, options);
    if (options.keys !== undefined) await adoptKeySet(driver, options.keys);
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
        if (store.#sweeping !== undefined) return;
        const tick = async () => {
          await store.sweepAll();
          await store.maintain();
        };
        store.#sweeping = tick()
          .catch(() => 0)
          .finally(() => (store.#sweeping = undefined));
      }, interval);
      store.#timer.unref();
    }
    return store;
  }

  /** Register (more) API keys, keeping the others (a library's or a test's; a keys file is `keys` at open). */
  async addKeys(keys: readonly KeyConfig[]): Promise<void> {
    try {
      await this.#guard(() => registerKeys(this.#driver, keys));
    } finally {
      this.#credentials.clear();
    }
  }

  /**
   * Authenticate a raw `Authorization` header: from this process's credential cache when the
   * key was read less than `credentialCacheMs` ago (no statement, answered synchronously; its
   * expiry judged at `approximateNow()`), else one statement.
   */
  authenticate(header: string | null | undefined): MaybePromise<AuthResult> {
    const apiKey = apiKeyOf(header);
    if (typeof apiKey !== 'string') return apiKey;
    const hash = digest(apiKey);
    const id = hash.toString('hex');
    const cached = this.#credentials.judgeFresh(id, this.approximateNow());
    if (cached !== undefined) return cached;
    return this.#guard(async () => {
      const read = await this.#credentials.read(id, async () => {
        const key = await readKey(this.#driver, hash);
        if (key !== undefined) this.#learn(key.now, key.manual);
        return key;
      });
      return read === undefined ? unknownKey() : judgeKey(read, this.approximateNow());
    });
  }

  /** Take one request from the credential's rate limit (one statement when it has one). */
  checkRateLimit(credential: Credential): MaybePromise<RateDecision> {
    if (credential.rateLimitPerSecond === null) return { allowed: true };
    return this.#guard(() => takeToken(this.#driver, credential));
  }

  /**
   * One API operation as one unit (see `Store.execute` and docs/storage.md): no statement when
   * the operation sends none, one when it is a one-statement operation (a renew), else one
   * transaction.
   */
  async execute<R, A>(
    request: OperationRequest<A>,
    run: (ops: Operations) => MaybePromise<R>,
    encode: (outcome: OperationOutcome<R>) => A,
  ): Promise<ExecuteResult<A>> {
    const idempotency = request.idempotency;
    const credential = request.credential;
    let record: UnitRecord | undefined;
    if (idempotency !== undefined && credential !== undefined) {
      const address = recordAddress(credential.credentialId, idempotency.key);
      record = { credentialId: credential.credentialId, key: idempotency.key, fingerprint: idempotency.fingerprint, ...address };
    }
    const local = record?.hash.toString('hex');
    if (local !== undefined) {
      if (this.#inFlight.has(local)) throw inFlight();
      this.#inFlight.add(local);
    }
    try {
      const unit = new OperationUnit(this.#driver, request, record);
      let outcome: OperationOutcome<R>;
      try {
        outcome = { ok: true, value: await run(this.#operations(unit)) };
      } catch (error) {
        outcome = { ok: false, error };
      }
      return await unit.finish(outcome, encode);
    } catch (error) {
      throw asUnavailable(error) ?? error;
    } finally {
      if (local !== undefined) this.#inFlight.delete(local);
    }
  }

  #operations<A>(unit: OperationUnit<A>): Operations {
    // Strings cross into SQL through the text codec (U+0000, which `text` refuses, escaped).
    const context: UnitContext = { tx: textCodecSession(unit), random: this.#random, single: textCodecSingle((call) => unit.single(call)) };
    return new LazyOperations(context);
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
    return this.#guard(() => readStats(this.#driver));
  }

  /**
   * Ready when the database answers and has applied every migration this build knows (one
   * statement); a newer schema (a rolling upgrade's later build migrated first) is ready too.
   */
  async ready(): Promise<Readiness> {
    return readReadiness(this.#driver);
  }

  /** Live leases by kind, at the database's now (one statement). */
  heldByKind(): Promise<Record<LeaseKind, number>> {
    return this.#guard(() => readHeldByKind(this.#driver));
  }

  /** The pool's usage (PostgreSQL), else `undefined`. */
  poolUsage(): PoolUsage | undefined {
    return this.#driver.poolUsage?.();
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

  /**
   * Keep the tables' planner statistics current (`maintainStatistics`; the background sweep
   * runs it after each pass); answers the tables it analyzed.
   */
  maintain(): Promise<string[]> {
    return this.#guard(() => maintainStatistics(this.#driver));
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
}
