import type { EngineStats, CredentialUpdate } from '../engine/index.js';
import type { Fault, FaultRule, Faults } from '../http/faults.js';
import type { MemoryStore } from '../store/memory/memory-store.js';
import type { MaybePromise, Store } from '../store/operations.js';

/**
 * What a lever answers on store `S`: the value itself on the memory store (it answers
 * synchronously), a promise on a SQL store, either on a store of unknown kind.
 */
export type Lever<S extends Store, T> = S extends MemoryStore ? T : S extends { readonly kind: 'postgres' | 'pglite' } ? Promise<T> : MaybePromise<T>;

/**
 * The reference server's test levers, in process (`server.control`) and behind `--control`
 * under `/_control`. The state levers act on the store (`store.controls`: on a SQL store every
 * process sharing the database sees them; the manual clock is the database's offset); faults
 * are too (a table in the database on SQL). Each returns what it touched. Levers throw domain errors only
 * (`ClockNotManualError`, `EngineError`); the HTTP edge maps them to answers.
 * @example
 * server.control.advanceClock(31_000); // leases due in that window expire
 * server.control.injectFault({ operationId: 'heartbeatClaims', status: 503, times: 3 });
 */
export class ServerControl<S extends Store = MemoryStore> {
  /** Levers over a store and the process's fault rules. */
  constructor(
    private readonly store: S,
    private readonly faultRules: Faults,
  ) {}

  /** The store's answer as this store's lever type (synchronous on the memory store). */
  private lever<T>(value: MaybePromise<T>): Lever<S, T> {
    return value as Lever<S, T>;
  }

  /** `manual` when the clock only moves when told to. */
  get clockMode(): Lever<S, 'real' | 'manual'> {
    return this.lever(this.store.controls.clockMode());
  }

  /** Server time, epoch ms (the database's clock with its manual offset on a SQL store). */
  now(): Lever<S, number> {
    return this.lever(this.store.now());
  }

  /** Moves the manual clock forward and expires everything due in that window; returns the new time. */
  advanceClock(ms: number): Lever<S, number> {
    return this.lever(this.store.controls.advanceClock(ms));
  }

  /** Cancels a run, as `cancelScope` does, in one account or every account. */
  cancelScope(params: { spaceId: string; scopeId: string; accountId?: string | undefined }): Lever<S, number> {
    return this.lever(this.store.controls.cancelScope(params));
  }

  /** Discards a message by its handle, as `discardMessage` does. */
  discardMessage(params: { spool: string; handle: string; accountId?: string | undefined }): Lever<S, number> {
    return this.lever(this.store.controls.discardMessage(params));
  }

  /** Fails over: every outstanding spool lease goes stale and its message returns to its queue. */
  primaryChange(): Lever<S, number> {
    return this.lever(this.store.controls.primaryChange());
  }

  /** Takes a lease away now; the next heartbeat reports it `lost`. */
  loseLease(claimId: string): Lever<S, number> {
    return this.lever(this.store.controls.loseLease(claimId));
  }

  /** Suspends (or reinstates) an account: 402 `account_suspended` for every key of it. */
  suspendAccount(accountId: string, suspended = true): Lever<S, number> {
    return this.lever(this.store.controls.suspendAccount(accountId, suspended));
  }

  /** Changes a key's standing (blocked, expired, rate limit); an unknown key is `invalid_request`. */
  updateCredential(apiKey: string, changes: CredentialUpdate): Lever<S, number> {
    return this.lever(this.store.controls.updateCredential(apiKey, changes));
  }

  /** Blocks (or unblocks) a key: 403 with no code. */
  blockKey(apiKey: string, blocked = true): Lever<S, number> {
    return this.updateCredential(apiKey, { blocked });
  }

  /** Marks a key expired (or valid again): 401 `expired_api_key`. */
  expireKey(apiKey: string, expired = true): Lever<S, number> {
    return this.updateCredential(apiKey, { expired });
  }

  /** Sets a key's rate limit in requests per second (`null`: none). */
  setRateLimit(apiKey: string, rateLimitPerSecond: number | null): Lever<S, number> {
    return this.updateCredential(apiKey, { rateLimitPerSecond });
  }

  /**
   * Arms a fault for the next `times` matching requests (options and defaults: `normalizeFaultRule`;
   * a bad rule throws `InvalidFaultRuleError`). On a SQL store the rule is deployment state:
   * requests on every process sharing the database count against `times`.
   */
  injectFault(rule: FaultRule): Lever<S, Fault> {
    return this.lever(this.faultRules.add(rule));
  }

  /** Removes every fault rule; returns how many were armed. */
  clearFaults(): Lever<S, number> {
    return this.lever(this.faultRules.clear());
  }

  /** The armed fault rules. */
  faults(): Lever<S, Fault[]> {
    return this.lever(this.faultRules.list());
  }

  /** Counts of leases, tombstones, messages and idempotency records. */
  stats(): Lever<S, EngineStats> {
    return this.lever(this.store.stats());
  }
}
