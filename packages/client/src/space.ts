import { ClaimListPromise, type ListClaimsOptions } from './claim-list.js';
import { assertAddressableKey, ClaimHandle } from './claim-handle.js';
import type { ClientRuntime } from './client-runtime.js';
import { check } from './core/argument-checks.js';
import { LeaseLostError } from './core/lease-lost-error.js';
import { pickCallOptions, type CallOptions } from './resources/call-options.js';
import { SpaceLease } from './space-lease.js';
import type { Claim, ScopeCancellation } from './wire-types.js';

/** Who claims in a run: `holder` is shown in reads; `holderSession` defaults to the client's session. */
export interface RunOptions {
  /** A name for the claimant (1–200 characters), shown in claim rows. */
  holder: string;
  /**
   * The session recorded on this run's claims. Default: the client's `session`. Another value
   * gets its own batch heartbeat (one request per cadence for that session's leases).
   */
  holderSession?: string | undefined;
}

/** Options of `run.claim(key)`. */
export interface ClaimOptions {
  /** The lease asked at acquire (and by an explicit `renew()`), 5–600 s. Default: the client's `heartbeatTtlSeconds`. */
  leaseSeconds?: number | undefined;
}

/** Read access to the claims of a space: `list()` (paginated) and `get(key)`. */
export class SpaceClaims {
  /** The space. */
  readonly spaceId: string;
  readonly #runtime: ClientRuntime;

  /** @internal */
  constructor(runtime: ClientRuntime, spaceId: string) {
    this.#runtime = runtime;
    this.spaceId = spaceId;
  }

  /**
   * The held claims in key order (optionally only keys starting with `prefix`), `limit` per page:
   * `await` it for the first page, or `for await` over it for every claim of every page.
   * @example
   * for await (const claim of space.claims.list({ prefix: 'reports/', limit: 100 })) console.log(claim.key, claim.holder);
   */
  list(options: ListClaimsOptions = {}): ClaimListPromise {
    const { prefix, limit, cursor } = options;
    const call = pickCallOptions(options);
    const fetch = async (next: string | undefined) =>
      (await this.#runtime.claims.list(this.spaceId, { prefix, limit, cursor: next }, call)).data;
    return new ClaimListPromise(fetch, cursor);
  }

  /** The current holder's row of `key` (no token); rejects with `NotFoundError` (`claim_not_found`) when the key is free. */
  async get(key: string, options: CallOptions = {}): Promise<Claim> {
    assertAddressableKey(key);
    return (await this.#runtime.claims.get(this.spaceId, key, pickCallOptions(options))).data;
  }
}

/** One run (scope) of a space, claiming as one holder: `claim(key)` names a key to take. */
export class Run {
  /** The space. */
  readonly spaceId: string;
  /** The run's id (a UUID: the API's `scopeId`). */
  readonly runId: string;
  /** The claimant's name. */
  readonly holder: string;
  /** The session its claims record. */
  readonly holderSession: string;
  readonly #runtime: ClientRuntime;

  /** @internal */
  constructor(runtime: ClientRuntime, spaceId: string, runId: string, options: RunOptions) {
    this.#runtime = runtime;
    this.spaceId = spaceId;
    this.runId = runId;
    check(typeof options === 'object' && options !== null && typeof options.holder === 'string', 'holder', 'a string', options?.holder, 'run');
    if (options.holderSession !== undefined) {
      const session = options.holderSession;
      check(typeof session === 'string' && session.length >= 1 && session.length <= 200, 'holderSession', 'a string of 1–200 characters', session, 'run');
    }
    this.holder = options.holder;
    this.holderSession = options.holderSession ?? runtime.session;
  }

  /** A handle on `key` for this run; nothing is sent until `acquire()`, `tryAcquire()` or `run()`. */
  claim(key: string, options: ClaimOptions = {}): ClaimHandle {
    return new ClaimHandle(this.#runtime, {
      spaceId: this.spaceId,
      key,
      runId: this.runId,
      holder: this.holder,
      holderSession: this.holderSession,
      leaseSeconds: options.leaseSeconds ?? this.#runtime.ttlSeconds,
    });
  }

  /** Cancels this run (see {@link Space.cancelRun}). */
  cancel(options: CallOptions = {}): Promise<ScopeCancellation> {
    return cancelRun(this.#runtime, this.spaceId, this.runId, options);
  }
}

/**
 * A space: a namespace of keys that runs claim. Any UUID the API key may see names one.
 * @example
 * const space = lh.space('6f1c2b9e-8d4a-4c1e-9b7a-3e2f1d0c9b8a');
 * const lease = await space.run(runId, { holder: 'worker-1' }).claim('reports/2026-11').tryAcquire();
 */
export class Space {
  /** The space's id. */
  readonly spaceId: string;
  /** The space's claims: `list()` and `get(key)`. */
  readonly claims: SpaceClaims;
  readonly #runtime: ClientRuntime;

  /** @internal */
  constructor(runtime: ClientRuntime, spaceId: string) {
    this.#runtime = runtime;
    this.spaceId = spaceId;
    this.claims = new SpaceClaims(runtime, spaceId);
  }

  /** A run of this space, claiming as `holder` (the run id is a UUID, the API's `scopeId`). */
  run(runId: string, options: RunOptions): Run {
    return new Run(this.#runtime, this.spaceId, runId, options);
  }

  /**
   * Cancels a run: its claims are taken away (held keys pass to waiters of other runs). This
   * client's leases of the run abort at once with reason `cancelled`, and each sends one
   * best-effort release with its token (the server's safe cleanup).
   */
  cancelRun(runId: string, options: CallOptions = {}): Promise<ScopeCancellation> {
    return cancelRun(this.#runtime, this.spaceId, runId, options);
  }
}

async function cancelRun(runtime: ClientRuntime, spaceId: string, runId: string, options: CallOptions): Promise<ScopeCancellation> {
  const { data } = await runtime.claims.cancelScope(spaceId, runId, pickCallOptions(options));
  for (const lease of runtime.trackedIn()) {
    if (lease instanceof SpaceLease && lease.spaceId === spaceId && lease.runId.toLowerCase() === runId.toLowerCase()) {
      lease.reportError(new LeaseLostError('cancelled', lease.claimId, { message: `Run ${runId} was cancelled.` }));
    }
  }
  return data;
}
