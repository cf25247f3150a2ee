import type { Fault, FaultRule, LeaseholdServer } from '@leasehold/server/portable';
import { durationMs, type Duration } from '@leasehold/protocol';
import { leaseWatchOf, type LeaseKind } from './lease-watch.js';
import { requireOperationId, type LeaseholdOperationId } from './operation-id.js';

/**
 * Which requests a fault hits: an operationId, or any mix of operationId, method and path
 * prefix (the path as the API sees it, without the base URL's mount prefix, e.g. `/v1/spools/`).
 */
export type FaultTarget =
  | LeaseholdOperationId
  | { operationId?: LeaseholdOperationId; method?: string; pathPrefix?: string };

/** Options of `failNext`. */
export interface FailNextOptions {
  /** The error status to answer with (400–599). Default 503. */
  status?: number;
  /** How many matching requests fail. Default 1. */
  times?: number;
  /** `Retry-After` in whole seconds. Default 1 for 429 and 503; not allowed for other statuses. */
  retryAfterSeconds?: number;
  /** Also wait this long before answering (real or faked `setTimeout`). */
  latency?: Duration;
  /** Chance that a matching request is hit, 0–1 (seeded, reproducible). Default 1. */
  probability?: number;
}

/** How many matching requests a latency or drop fault hits. */
export interface TimesOption {
  /** Default 1. */
  times?: number;
}

/**
 * The levers a test reaches for, as thin wrappers over `server.control`: fail, slow down or
 * drop the next matching calls, take leases away, move the clock. Every adapter over the same
 * server (MSW handlers, `LeaseholdDispatcher`) sees the same faults.
 * @example
 * const { scenario } = createLeaseholdHandlers({ baseUrl });
 * scenario.failNext('heartbeatClaims', { status: 503, times: 3 }); // Retry-After: 1
 * scenario.advanceClock('31s'); // a lease nobody renewed expires
 * @see LeaseholdServer.control
 */
export class LeaseholdScenario {
  /** Levers over `server`. */
  constructor(readonly server: LeaseholdServer) {}

  /**
   * Answers the next `times` matching calls with an error envelope of `status` (default 503),
   * with `Retry-After` (default 1 s) when the status is 429 or 503. The request is not run.
   */
  failNext(target: FaultTarget, options: FailNextOptions = {}): Fault {
    checkTarget(target, 'failNext');
    // Options and defaults (Retry-After 1 s for 429/503, refused for other statuses, the ranges)
    // are the server's one rule, `normalizeFaultRule`, shared with `/_control/faults`.
    return this.inject(target, {
      times: timesOf(options.times),
      status: options.status ?? 503,
      ...(options.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: options.retryAfterSeconds }),
      ...(options.latency === undefined ? {} : { latencyMs: durationMs(options.latency) }),
      ...(options.probability === undefined ? {} : { probability: options.probability }),
    });
  }

  /**
   * Delays the answer to the next `times` matching calls. The request runs (and commits) first;
   * the wait uses `setTimeout`, so under fake timers it ends on `vi.advanceTimersByTimeAsync`.
   */
  addLatency(target: FaultTarget, latency: Duration, options: TimesOption = {}): Fault {
    checkTarget(target, 'addLatency');
    return this.inject(target, { times: timesOf(options.times), latencyMs: durationMs(latency) });
  }

  /**
   * Runs the next `times` matching calls — the write commits — and then drops the answer: the
   * caller sees a network error (`fetch` rejects; the dispatcher reports a socket error).
   */
  dropNextResponse(target: FaultTarget, options: TimesOption = {}): Fault {
    checkTarget(target, 'dropNextResponse');
    return this.inject(target, { times: timesOf(options.times), dropResponse: true });
  }

  /**
   * Takes a live lease away now; its holder's next heartbeat reports it `lost` (and a renew
   * fails). Throws when no live lease has that `claimId`.
   */
  loseLease(claimId: string): void {
    if (this.server.control.loseLease(claimId) === 0) {
      throw new Error(`No live lease has claimId ${JSON.stringify(claimId)}`);
    }
  }

  /**
   * Takes away the next lease granted through this server's mocks (of `kind`, or any kind),
   * right after the grant is answered: the acquirer gets its token, and its next heartbeat
   * reports the lease `lost`. Resolves with the lease's `claimId`.
   */
  loseNextLease(kind?: LeaseKind | readonly LeaseKind[]): Promise<string> {
    const kinds = kind === undefined ? undefined : typeof kind === 'string' ? [kind] : kind;
    return leaseWatchOf(this.server).loseNext(kinds);
  }

  /**
   * Moves the manual clock forward and expires everything due in that window (waiters are
   * granted); returns the new server time in epoch ms. Throws on a real clock.
   */
  advanceClock(duration: Duration): number {
    return this.server.control.advanceClock(durationMs(duration));
  }

  /** Server time, epoch ms. */
  now(): number {
    return this.server.control.now();
  }

  /** The armed fault rules, with how many hits each has left. */
  faults(): Fault[] {
    return this.server.control.faults();
  }

  /** Disarms every fault; returns how many were armed. */
  clearFaults(): number {
    return this.server.control.clearFaults();
  }

  /** Disarms every fault and forgets pending `loseNextLease` calls. State and clock stay. */
  reset(): void {
    this.server.control.clearFaults();
    leaseWatchOf(this.server).clear();
  }

  private inject(target: FaultTarget, rule: Omit<FaultRule, 'operationId' | 'method' | 'pathPrefix'>): Fault {
    const match = typeof target === 'string' ? { operationId: target } : target;
    if (match.operationId === undefined && match.method === undefined && match.pathPrefix === undefined) {
      throw new TypeError('A fault target needs an operationId, a method or a pathPrefix');
    }
    return this.server.control.injectFault({ ...match, ...rule });
  }
}

/** An operationId in `target` must be one of the API's: refused at once, with the nearest valid ones. */
function checkTarget(target: FaultTarget, lever: string): void {
  const operationId = typeof target === 'string' ? target : target?.operationId;
  if (operationId !== undefined) requireOperationId(operationId, lever);
}

function timesOf(times: number | undefined): number {
  const value = times ?? 1;
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`times must be a positive integer, got ${value}`);
  return value;
}

/**
 * The scenario levers of a server (the same object `createLeaseholdHandlers` returns).
 * @example
 * const scenario = leaseholdScenario(dispatcher.server);
 * scenario.dropNextResponse('ackMessage');
 */
export function leaseholdScenario(server: LeaseholdServer): LeaseholdScenario {
  return new LeaseholdScenario(server);
}
