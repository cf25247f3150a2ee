import {
  Engine,
  ManualClock,
  type AuthResult,
  type Credential,
  type EngineOptions,
  type EngineStats,
  type LeaseKind,
  type RateDecision,
} from '../../engine/index.js';
import { ClockNotManualError } from '../errors.js';
import type {
  EngineBacked,
  ExecuteResult,
  MaybePromise,
  OperationOutcome,
  OperationRequest,
  Operations,
  PoolUsage,
  Readiness,
  Store,
  StoreControls,
} from '../operations.js';

/**
 * The in-memory store: a thin adapter over the `Engine`, answering synchronously whenever the
 * operation does (no promise, no microtask), so the memory store pays nothing for the
 * asynchronous interface. Engine operations validate and check everything before they change
 * anything, so a refused operation leaves no trace; a successful one has changed the engine
 * when `encode` runs (memory has no rollback: an `encode` that throws leaves the write, and
 * its idempotency record is abandoned so a retry runs again).
 * @example
 * const store = new MemoryStore({ clock: new ManualClock() });
 * const { answer } = store.execute(request, (ops) => ops.claims.get(params), encode) as ExecuteResult<Answer>;
 */
export class MemoryStore implements Store, EngineBacked {
  /** Always `memory`. */
  readonly kind = 'memory' as const;
  /** The engine behind the store. */
  readonly engine: Engine;
  /** The test levers. */
  readonly controls: StoreControls;
  /** None: the server's in-process fault injector is the whole deployment. */
  readonly faultRules = undefined;
  readonly #ops: Operations;

  /** A store over a new engine (`options` as `Engine` takes them), or over `engine`. */
  constructor(options: EngineOptions | { engine: Engine }) {
    const engine = 'engine' in options ? options.engine : new Engine(options);
    this.engine = engine;
    this.#ops = {
      claims: engine.claims,
      tasks: engine.tasks,
      spools: engine.spools,
      activity: engine.activity,
      heartbeat: (request) => engine.heartbeat(request),
    };
    this.controls = memoryControls(engine);
  }

  /** Authenticate a raw `Authorization` header. */
  authenticate(header: string | null | undefined): AuthResult {
    return this.engine.authenticate(header);
  }

  /** Take one request from the credential's rate limit. */
  checkRateLimit(credential: Credential): RateDecision {
    return this.engine.checkRateLimit(credential);
  }

  /** One operation as a unit (see `Store.execute`); synchronous unless `run` or `beforeCommit` wait. */
  execute<R, A>(
    request: OperationRequest<A>,
    run: (ops: Operations) => MaybePromise<R>,
    encode: (outcome: OperationOutcome<R>) => A,
  ): MaybePromise<ExecuteResult<A>> {
    const idempotency = request.idempotency;
    const credential = request.credential;
    if (idempotency === undefined || credential === undefined) {
      const outcome = attempt(this.#ops, run);
      if (outcome instanceof Promise) return outcome.then((settled) => this.#finish(request, settled, encode, undefined));
      return this.#finish(request, outcome, encode, undefined);
    }
    const records = this.engine.idempotency;
    const verdict = records.begin(credential.credentialId, idempotency.key, idempotency.fingerprint);
    if (verdict.kind === 'replay') return { answer: verdict.response as A, replayed: true };
    const record = { credentialId: credential.credentialId, key: idempotency.key };
    const outcome = attempt(this.#ops, run);
    if (outcome instanceof Promise) return outcome.then((settled) => this.#finish(request, settled, encode, record));
    return this.#finish(request, outcome, encode, record);
  }

  #finish<R, A>(
    request: OperationRequest<A>,
    outcome: OperationOutcome<R>,
    encode: (outcome: OperationOutcome<R>) => A,
    record: { credentialId: string; key: string } | undefined,
  ): MaybePromise<ExecuteResult<A>> {
    const records = this.engine.idempotency;
    let answer: A;
    try {
      answer = encode(outcome);
    } catch (error) {
      if (record !== undefined) records.abandon(record.credentialId, record.key);
      throw error;
    }
    const store = () => {
      if (record === undefined) return;
      if (request.isStorable(answer)) records.complete(record.credentialId, record.key, answer);
      else records.abandon(record.credentialId, record.key);
    };
    const result: ExecuteResult<A> = { answer, replayed: false };
    if (request.beforeCommit === undefined) {
      store();
      return result;
    }
    return request.beforeCommit().then(
      () => {
        store();
        return result;
      },
      (error: unknown) => {
        if (record !== undefined) records.abandon(record.credentialId, record.key);
        throw error;
      },
    );
  }

  /** The engine clock's time. */
  now(): number {
    return this.engine.clock.now();
  }

  /** The engine clock's time (the same as `now`). */
  approximateNow(): number {
    return this.engine.clock.now();
  }

  /** Counts of leases, tombstones, messages and idempotency records. */
  stats(): EngineStats {
    return this.engine.stats();
  }

  /** Always ready: the state is this process's memory. */
  ready(): Readiness {
    return { ready: true, detail: 'memory' };
  }

  /** Live leases by kind (one pass over the leases the engine remembers). */
  heldByKind(): Record<LeaseKind, number> {
    const now = this.engine.clock.now();
    const held: Record<LeaseKind, number> = { space: 0, task: 0, spool: 0 };
    for (const lease of this.engine.leases.all()) {
      if (lease.status === 'held' && (lease.expiresAt === null || lease.expiresAt > now)) held[lease.kind]++;
    }
    return held;
  }

  /** No pool. */
  poolUsage(): undefined {
    return undefined;
  }

  /** Nothing to release. */
  async close(): Promise<void> {}
}

/** Run `run(ops)`, capturing a throw (or a rejection) as a failed outcome. */
function attempt<R>(ops: Operations, run: (ops: Operations) => MaybePromise<R>): MaybePromise<OperationOutcome<R>> {
  let value: MaybePromise<R>;
  try {
    value = run(ops);
  } catch (error) {
    return { ok: false, error };
  }
  if (value instanceof Promise) {
    return value.then(
      (settled): OperationOutcome<R> => ({ ok: true, value: settled }),
      (error: unknown): OperationOutcome<R> => ({ ok: false, error }),
    );
  }
  return { ok: true, value };
}

function memoryControls(engine: Engine): StoreControls {
  const controls = engine.controls;
  return {
    clockMode: () => (engine.clock instanceof ManualClock ? 'manual' : 'real'),
    advanceClock(ms) {
      const clock = engine.clock;
      if (!(clock instanceof ManualClock)) throw new ClockNotManualError();
      clock.advance(ms);
      engine.processExpirations();
      return clock.now();
    },
    cancelScope: (params) => controls.cancelScope(params),
    discardMessage: (params) => controls.discardMessage(params),
    primaryChange: () => controls.primaryChange(),
    loseLease: (claimId) => controls.loseLease(claimId),
    suspendAccount: (accountId, suspended = true) => controls.suspendAccount(accountId, suspended),
    updateCredential: (apiKey, changes) => controls.updateCredential(apiKey, changes),
  };
}
