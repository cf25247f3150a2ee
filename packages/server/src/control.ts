import { ManualClock, type Clock, type Engine, type EngineStats } from './engine/index.js';
import { HttpError } from './http/http-error.js';
import type { Fault, FaultInjector, FaultRule } from './http/faults.js';

/**
 * The reference server's test levers, in process (`server.control`) and behind `--control`
 * under `/_control`. Each returns what it touched.
 * @example
 * server.control.advanceClock(31_000); // leases due in that window expire
 * server.control.injectFault({ operationId: 'heartbeatClaims', status: 503, times: 3 });
 */
export class ServerControl {
  /** Levers over an engine, its clock and the pipeline's fault rules. */
  constructor(
    private readonly engine: Engine,
    private readonly faultInjector: FaultInjector,
  ) {}

  /** The clock that judges every lease. */
  get clock(): Clock {
    return this.engine.clock;
  }

  /** `manual` when the clock only moves when told to. */
  get clockMode(): 'real' | 'manual' {
    return this.engine.clock instanceof ManualClock ? 'manual' : 'real';
  }

  /** Server time, epoch ms. */
  now(): number {
    return this.engine.clock.now();
  }

  /** Moves the manual clock forward and expires everything due in that window; returns the new time. */
  advanceClock(ms: number): number {
    const clock = this.engine.clock;
    if (!(clock instanceof ManualClock)) {
      throw new HttpError(409, 'clock_not_manual', 'The clock is real; start the server with --clock manual to advance it.');
    }
    clock.advance(ms);
    this.engine.processExpirations();
    return clock.now();
  }

  /** Cancels a run, as `cancelScope` does, in one account or every account. */
  cancelScope(params: { spaceId: string; scopeId: string; accountId?: string }): number {
    return this.engine.controls.cancelScope(params);
  }

  /** Discards a message by its handle, as `discardMessage` does. */
  discardMessage(params: { spool: string; handle: string; accountId?: string }): number {
    return this.engine.controls.discardMessage(params);
  }

  /** Fails over: every outstanding spool lease goes stale and its message returns to its queue. */
  primaryChange(): number {
    return this.engine.controls.primaryChange();
  }

  /** Takes a lease away now; the next heartbeat reports it `lost`. */
  loseLease(claimId: string): number {
    return this.engine.controls.loseLease(claimId);
  }

  /** Suspends (or reinstates) an account: 402 `account_suspended` for every key of it. */
  suspendAccount(accountId: string, suspended = true): number {
    return this.engine.controls.suspendAccount(accountId, suspended);
  }

  /** Blocks (or unblocks) a key: 403 with no code. */
  blockKey(apiKey: string, blocked = true): number {
    return this.engine.controls.blockKey(apiKey, blocked);
  }

  /** Marks a key expired (or valid again): 401 `expired_api_key`. */
  expireKey(apiKey: string, expired = true): number {
    return this.engine.controls.setKeyExpired(apiKey, expired);
  }

  /** Sets a key's rate limit in requests per second (`null`: none). */
  setRateLimit(apiKey: string, rateLimitPerSecond: number | null): number {
    return this.engine.controls.setRateLimit(apiKey, rateLimitPerSecond);
  }

  /** Arms a fault for the next `times` matching requests. */
  injectFault(rule: FaultRule): Fault {
    return this.faultInjector.add(rule);
  }

  /** Removes every fault rule; returns how many were armed. */
  clearFaults(): number {
    return this.faultInjector.clear();
  }

  /** The armed fault rules. */
  faults(): Fault[] {
    return this.faultInjector.list();
  }

  /** Counts of leases, tombstones, messages and idempotency records. */
  stats(): EngineStats {
    return this.engine.stats();
  }
}
