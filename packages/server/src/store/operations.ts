import type {
  Activity,
  AuthResult,
  Credential,
  CredentialUpdate,
  Engine,
  EngineStats,
  HeartbeatRequest,
  HeartbeatResponse,
  LeaseKind,
  RateDecision,
  SpaceClaims,
  Spools,
  Tasks,
} from '../engine/index.js';

/** A value, or a promise of it: the memory store answers synchronously, the SQL store later. */
export type MaybePromise<T> = T | Promise<T>;

/** The same methods, each allowed to answer a promise (parameters and results stay the engine's). */
export type MaybeAsync<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => MaybePromise<R> : never;
};

/** Space-claim operations: the engine's `SpaceClaims` surface, same params, wire-shaped results. */
export type ClaimOperations = MaybeAsync<Pick<SpaceClaims, 'acquire' | 'get' | 'list' | 'renew' | 'release' | 'cancelScope'>>;

/** Task operations: the engine's `Tasks` surface. */
export type TaskOperations = MaybeAsync<
  Pick<Tasks, 'create' | 'list' | 'get' | 'update' | 'addNote' | 'claim' | 'renew' | 'release' | 'complete' | 'revokeClaim' | 'requeue'>
>;

/** Spool operations: the engine's `Spools` surface. */
export type SpoolOperations = MaybeAsync<
  Pick<Spools, 'createSpool' | 'getSpool' | 'putQueue' | 'getQueue' | 'send' | 'receive' | 'renew' | 'ack' | 'nack' | 'discard'>
>;

/** The read-only activity views: the engine's `Activity` surface. */
export type ActivityOperations = MaybeAsync<Pick<Activity, 'listSpaces' | 'spaceActivity' | 'queueStats' | 'queueActivity' | 'events' | 'sessions'>>;

/**
 * What one unit of work may call: every API operation of the engine, with the engine's params
 * and answers (`EngineError` for refusals). Valid only inside the `execute` call that handed it
 * out: on the SQL store it is bound to that unit's transaction.
 */
export interface Operations {
  /** Space claims. */
  readonly claims: ClaimOperations;
  /** Tasks and task claims. */
  readonly tasks: TaskOperations;
  /** Spools, queues, messages and spool leases. */
  readonly spools: SpoolOperations;
  /** Active spaces, a space's activity, queue statistics, a queue's leased messages, lease events, sessions. */
  readonly activity: ActivityOperations;
  /** The batch heartbeat (`ttl` and `details` raw, as `Engine.heartbeat` takes them). */
  heartbeat(request: HeartbeatRequest): MaybePromise<HeartbeatResponse>;
}

/** How an operation ended inside a unit: its value, or what it threw. */
export type OperationOutcome<R> = { readonly ok: true; readonly value: R } | { readonly ok: false; readonly error: unknown };

/** The idempotency part of a unit: the normalized `Idempotency-Key` and the request's fingerprint. */
export interface IdempotencyClaim {
  /** The normalized key (`normalizeIdempotencyKey`). */
  readonly key: string;
  /** `requestFingerprint(method, path, body)` (plus what else names the request's subject). */
  readonly fingerprint: string;
}

/** One API operation as a unit of work. */
export interface OperationRequest<A> {
  /** The caller (`undefined` only for the test controls, which never take idempotency). */
  readonly credential: Credential | undefined;
  /** The spec's operation id (for metrics, logs and per-operation choices of a store). */
  readonly operationId: string;
  /** Present when the request carries an `Idempotency-Key` the operation accepts. */
  readonly idempotency?: IdempotencyClaim | undefined;
  /** Whether an encoded answer is kept for replays (the pipeline's rule: only executed operations). */
  readonly isStorable: (answer: A) => boolean;
  /**
   * Awaited after the answer is encoded and before the unit commits (an injected latency fault:
   * a slow server). While it runs the idempotency record is in flight.
   */
  readonly beforeCommit?: (() => Promise<void>) | undefined;
}

/** What `execute` answers: the encoded answer, and whether it is a replay of a stored one. */
export interface ExecuteResult<A> {
  /** The encoded answer (replays answer the stored one, as it was encoded the first time). */
  readonly answer: A;
  /** True when the answer was replayed from an idempotency record. */
  readonly replayed: boolean;
}

/** The test levers that are state (they act on every process sharing the store). */
export interface StoreControls {
  /** `manual` when the clock moves only through `advanceClock`. */
  clockMode(): MaybePromise<'real' | 'manual'>;
  /** Move a manual clock forward by `ms`, expire what fell due, answer the new time. */
  advanceClock(ms: number): MaybePromise<number>;
  /** Cancel a run in one account (or every account); answers how many claims were lost. */
  cancelScope(params: { spaceId: string; scopeId: string; accountId?: string | undefined }): MaybePromise<number>;
  /** Discard a message by handle in one account's spool (or any account's); answers how many. */
  discardMessage(params: { spool: string; handle: string; accountId?: string | undefined }): MaybePromise<number>;
  /** Every outstanding spool lease goes stale; answers how many. */
  primaryChange(): MaybePromise<number>;
  /** Take one live lease away now; answers 1, or 0 when there is none. */
  loseLease(claimId: string): MaybePromise<number>;
  /** Suspend (or reinstate) an account. */
  suspendAccount(accountId: string, suspended?: boolean): MaybePromise<number>;
  /** Change a key's standing (blocked, expired, rate limit); unknown keys are `invalid_request`. */
  updateCredential(apiKey: string, changes: CredentialUpdate): MaybePromise<number>;
}

/** Which implementation a store is. */
export type StoreKind = 'memory' | 'postgres' | 'pglite';

/**
 * The one operations interface under the HTTP pipeline. Each API operation is one
 * `execute(request, run, encode)`: in one unit (a transaction on SQL stores) it looks up or
 * claims the idempotency record (replay, `idempotency_in_flight`, `idempotency_key_reused`),
 * runs `run(ops)`, encodes its outcome with `encode` (success or refusal; inside the unit, so an
 * answer that cannot be encoded rolls the write back), stores the encoded answer when
 * `request.isStorable(answer)` says so, awaits `request.beforeCommit`, and commits. A refusal
 * thrown by `run` rolls back the operation's writes (never the idempotency verdict) before it
 * is encoded. `execute` itself throws only `EngineError` for the idempotency verdicts,
 * `StoreUnavailableError` when the database is unreachable (answer 503 with `Retry-After`; the
 * unit did not commit), and whatever `encode` throws (nothing is committed then — except after
 * a one-statement operation, below).
 *
 * `run` must do nothing but call `ops` (and compute from their answers), and `encode` must be a
 * pure function of its outcome: the SQL store may start `run` before the idempotency verdict is
 * known — the verdict travels with the operation's first statement, and a replayed unit's
 * `run` is stopped there — and a one-statement operation (a space-claim renew: the record's
 * check, the write and the record in one statement, one round trip) commits with that
 * statement and replays by encoding the stored result again. For such an operation an `encode`
 * that throws leaves the write committed, as the memory store does, and forgets the record so a
 * retry runs again; an operation that sends no statement (refused by validation) costs none.
 *
 * Every method answers a `MaybePromise`: the memory store answers synchronously (no promise, no
 * microtask), so the pipeline's synchronous fast path stays possible. Encoded answers must be
 * JSON-serializable (SQL stores keep them in a table).
 * @example
 * const result = await store.execute(
 *   { credential, operationId: 'acquireSpaceClaim', idempotency: { key, fingerprint }, isStorable: (a) => a.status < 400 },
 *   (ops) => ops.claims.acquire({ credential, spaceId, key: 'k', scopeId, holder: 'w', holderSession: 's' }),
 *   (outcome) => (outcome.ok ? { status: 201, body: JSON.stringify(outcome.value) } : envelopeOf(outcome.error)),
 * );
 * @see docs/storage.md
 */
export interface Store {
  /** Which implementation this is. */
  readonly kind: StoreKind;
  /** Authenticate a raw `Authorization` header (401/402/403 answers as in `Engine.authenticate`). */
  authenticate(header: string | null | undefined): MaybePromise<AuthResult>;
  /** Take one request from the credential's rate limit. */
  checkRateLimit(credential: Credential): MaybePromise<RateDecision>;
  /** Run one API operation as one unit of work (see the interface summary). */
  execute<R, A>(
    request: OperationRequest<A>,
    run: (ops: Operations) => MaybePromise<R>,
    encode: (outcome: OperationOutcome<R>) => A,
  ): MaybePromise<ExecuteResult<A>>;
  /** The test levers that are state. */
  readonly controls: StoreControls;
  /** The store's time (epoch ms): the database's clock with its manual offset on SQL stores. */
  now(): MaybePromise<number>;
  /** The store's time as last seen, without asking the database (for `Date` headers). */
  approximateNow(): number;
  /** Counts of leases, tombstones, messages and idempotency records. */
  stats(): MaybePromise<EngineStats>;
  /** Whether the store can serve (`/readyz`): the database answers and its schema has every migration this build knows. */
  ready(): MaybePromise<Readiness>;
  /** Leases held now, by kind (for the `leasehold_leases_held` gauge; read at scrape time). */
  heldByKind(): MaybePromise<Record<LeaseKind, number>>;
  /** Armed fault rules as deployment state (SQL stores); `undefined`: this process's memory is the deployment (memory store). */
  readonly faultRules: FaultRuleTable | undefined;
  /** The connection pool's usage, when the store has a pool (PostgreSQL). */
  poolUsage(): PoolUsage | undefined;
  /** Release the store's resources (pool, timers, embedded database); operations then fail. */
  close(): Promise<void>;
}

/** One armed fault rule as a store keeps it (the rule normalized by the HTTP layer, as JSON). */
export interface FaultRuleRow {
  /** `flt_<n>`. */
  readonly id: string;
  readonly rule: Record<string, unknown>;
  /** Hits left. */
  readonly remaining: number;
}

/**
 * Where a store keeps armed fault rules when they are deployment state (SQL stores: every process
 * sharing the database sees them). Matching and probabilities stay in the HTTP layer.
 */
export interface FaultRuleTable {
  /** Arm `rule` for `times` hits. */
  add(rule: Record<string, unknown>, times: number): Promise<FaultRuleRow>;
  /** Disarm every rule; answers how many were armed. */
  clear(): Promise<number>;
  /** The armed rules, oldest first. */
  list(): Promise<FaultRuleRow[]>;
  /** Take one hit from each of `ids` that has hits left (atomically); answers the ids hit. */
  hit(ids: readonly string[]): Promise<string[]>;
}

/** What `Store.ready()` answers: ready, or why not. */
export type Readiness = { readonly ready: true; readonly detail: string } | { readonly ready: false; readonly reason: string };

/** A connection pool's usage (`pg.Pool`'s `totalCount`, `idleCount`, `waitingCount`). */
export interface PoolUsage {
  /** Connections open (idle or checked out). */
  readonly total: number;
  /** Connections open and idle. */
  readonly idle: number;
  /** Checkouts waiting for a connection. */
  readonly waiting: number;
  /** The pool's maximum size. */
  readonly max: number;
}

/** The memory store exposes its engine (the reference server's in-process levers use it). */
export interface EngineBacked {
  /** The in-memory engine behind the store. */
  readonly engine: Engine;
}
