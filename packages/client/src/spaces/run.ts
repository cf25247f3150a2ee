import { LeaseLostError } from '../core/errors/lease-lost-error.js';
import { check, checkUuid } from '../internal/argument-checks.js';
import { pickCallOptions, type CallOptions } from '../resources/call-options.js';
import type { ScopeCancellation } from '../resources/wire-types.js';
import { ClaimHandle } from './claim-handle.js';
import { SpaceLease } from './space-lease.js';
import type { ClaimOptions, RunOptions, SpaceContext } from './space-types.js';

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
  readonly #ctx: SpaceContext;

  /** @internal */
  constructor(ctx: SpaceContext, spaceId: string, runId: string, options: RunOptions) {
    checkUuid(runId, 'runId', 'space.run');
    this.#ctx = ctx;
    this.spaceId = spaceId;
    this.runId = runId;
    check(typeof options === 'object' && options !== null && typeof options.holder === 'string', 'holder', 'a string', options?.holder, 'run');
    if (options.holderSession !== undefined) {
      const session = options.holderSession;
      check(typeof session === 'string' && session.length >= 1 && session.length <= 200, 'holderSession', 'a string of 1–200 characters', session, 'run');
    }
    this.holder = options.holder;
    this.holderSession = options.holderSession ?? ctx.leases.session;
  }

  /** A handle on `key` for this run; nothing is sent until `acquire()`, `tryAcquire()` or `run()`. */
  claim(key: string, options: ClaimOptions = {}): ClaimHandle {
    return new ClaimHandle(this.#ctx, {
      spaceId: this.spaceId,
      key,
      runId: this.runId,
      holder: this.holder,
      holderSession: this.holderSession,
      leaseSeconds: options.leaseSeconds ?? this.#ctx.ttlSeconds,
    });
  }

  /** Cancels this run (see `Space.cancelRun`). */
  cancel(options: CallOptions = {}): Promise<ScopeCancellation> {
    return cancelRun(this.#ctx, this.spaceId, this.runId, options);
  }
}

/**
 * Cancels a run: its claims are taken away on the server, and this client's leases of the run
 * abort at once with reason `cancelled` (each then sends its one cleanup release).
 */
export async function cancelRun(ctx: SpaceContext, spaceId: string, runId: string, options: CallOptions): Promise<ScopeCancellation> {
  const { data } = await ctx.api.call('cancelScope', { path: { spaceId, scopeId: runId } }, pickCallOptions(options));
  for (const lease of ctx.leases.trackedIn()) {
    if (lease instanceof SpaceLease && lease.spaceId === spaceId && lease.runId.toLowerCase() === runId.toLowerCase()) {
      lease.reportError(new LeaseLostError('cancelled', lease.claimId, { message: `Run ${runId} was cancelled.` }));
    }
  }
  return data;
}
