import { ConflictError, NotFoundError } from '../core/errors/api-error.js';
import { LeaseLostError } from '../core/errors/lease-lost-error.js';
import { LeaseholdError } from '../core/errors/leasehold-error.js';
import { generateIdempotencyKey } from '../core/idempotency/idempotency-key.js';
import { rideThrough } from '../core/retry/ride-through.js';
import { assertSendable, check } from '../internal/argument-checks.js';
import { acquireUnlessEnded } from '../leases/replayed-grant.js';
import { runUnderLease } from '../leases/run-under-lease.js';
import { pickCallOptions } from '../resources/call-options.js';
import { adoptSpaceLease, SpaceLease } from './space-lease.js';
import type { AcquireOptions, SpaceClaimAddress, SpaceContext } from './space-types.js';
import { waitForTurn } from './wait-for-turn.js';

/** A space lease as `claim.run(fn)` hands it to `fn`: held, so its fence is known. */
export type HeldSpaceLease = SpaceLease & { readonly fence: number };

/**
 * One key of a space, claimed for one run: `acquire()` waits its turn, `tryAcquire()` does not,
 * `run(fn)` acquires, keeps the lease renewed while `fn` runs and releases it afterwards.
 * @example
 * const claim = lh.space(spaceId).run(runId, { holder: 'worker-1' }).claim('reports/2026-11');
 * const total = await claim.run(async (lease) => rebuild({ fence: lease.fence, signal: lease.signal }));
 */
export class ClaimHandle {
  /** The claimed key. */
  readonly key: string;
  readonly #ctx: SpaceContext;
  readonly #address: SpaceClaimAddress;

  /** @internal */
  constructor(ctx: SpaceContext, address: SpaceClaimAddress) {
    this.#ctx = ctx;
    this.#address = address;
    this.key = address.key;
  }

  /**
   * Takes the key, waiting in its first-come first-served queue while someone else holds it
   * (the batch heartbeat keeps the place and reports the grant; the fence is then read from the
   * key). Aborting `signal` while queued leaves the queue and rejects with `AbortError`;
   * closing the client does the same and rejects with `ClientClosedError`. Aborting while the
   * acquire request is out rejects at once, and a grant that still arrives is released. While
   * it waits its turn, the acquire keeps the process alive, as a pending request does.
   */
  async acquire(options: AcquireOptions = {}): Promise<SpaceLease> {
    // A waiting acquire rides through an outage: the same key is sent until the server answers
    // (or `signal` aborts, or a definitive error).
    const once = options.operationId === undefined && options.idempotencyKey === undefined ? { ...options, idempotencyKey: generateIdempotencyKey() } : options;
    const lease = await rideThrough(() => this.#send(true, once), { what: `acquire of ${this.key}`, log: this.#ctx.log, signal: options.signal, closed: this.#ctx.closeSignal });
    return this.#awaitGrant(lease, options.signal);
  }

  /** Takes the key if it is free; `null` when someone else holds it (409 `claim_held`: an answer, not a failure). */
  async tryAcquire(options: AcquireOptions = {}): Promise<SpaceLease | null> {
    let lease: SpaceLease;
    try {
      lease = await this.#send(false, options);
    } catch (error) {
      if (error instanceof ConflictError && error.code === 'claim_held') return null;
      throw error;
    }
    return this.#awaitGrant(lease, options.signal);
  }

  /**
   * Acquires (waiting its turn), runs `fn(lease)` while the batch heartbeat renews the lease,
   * then releases it — also when `fn` throws — and returns `fn`'s value. `fn` gets the lease
   * held, with its `fence`. If the lease is lost first, `lease.signal` aborts and this rejects
   * with `LeaseLostError` (unless `fn` already returned). A failed release after success is
   * logged, not thrown: the client retries the release after its next heartbeat answer (no
   * heartbeat names it, so it expires at worst).
   * @example
   * await claim.run(async (lease) => { await copy({ fence: lease.fence, signal: lease.signal }); });
   */
  async run<T>(fn: (lease: HeldSpaceLease) => T | Promise<T>, options: AcquireOptions = {}): Promise<T> {
    const lease = await this.acquire(options);
    return runUnderLease(lease as HeldSpaceLease, fn, this.#ctx.log);
  }

  /** Sends the acquire through the client's grant flights: a grant that arrives after `signal` aborted is released. */
  async #send(wait: boolean, options: AcquireOptions): Promise<SpaceLease> {
    const { spaceId, key, runId, holder, holderSession, leaseSeconds } = this.#address;
    // A key the client could not address afterwards (renew, read, release) is never acquired.
    assertAddressableKey(key);
    const body = { key, scopeId: runId, holder, holderSession, leaseSeconds, wait };
    const ctx = this.#ctx;
    // A replay (a restarted worker's operationId) whose lease already ended is dropped, and the key acquired afresh.
    const lease = await ctx.grants.obtain(options.signal, (signal) =>
      acquireUnlessEnded(async () => {
        const sentAt = ctx.leases.now(holderSession);
        const response = await ctx.api.call('acquireSpaceClaim', { path: { spaceId }, body }, { ...pickCallOptions(options), signal });
        return { grant: adoptSpaceLease(ctx, this.#address, response, sentAt, options.operationId), replayed: response.replayed };
      }, ctx.log),
    );
    if (lease === null) throw new LeaseholdError(`The acquire of ${key} answered no claim.`);
    return lease;
  }

  /** Resolves once the lease is held with a known fence. */
  async #awaitGrant(lease: SpaceLease, signal: AbortSignal | undefined): Promise<SpaceLease> {
    if (lease.status === 'queued') await waitForTurn(this.#ctx, lease, this.#address.holderSession, signal);
    if (lease.error) throw lease.error;
    if (lease.fence !== null) return lease;
    try {
      const read = () => this.#ctx.api.call('getSpaceClaim', { path: { spaceId: lease.spaceId, key: lease.key } }, pickCallOptions({ signal }));
      const { data: row } = await rideThrough(read, { what: `read of ${lease.key}'s fence`, log: this.#ctx.log, signal, lease, closed: this.#ctx.closeSignal });
      if (row.claimId === lease.claimId && row.fence !== null) {
        lease.updateFence(row.fence);
        return lease;
      }
      lease.reportError(new LeaseLostError('lost', lease.claimId, { message: `Key ${lease.key} passed to another claim before its fence was read.` }));
    } catch (error) {
      if (error instanceof NotFoundError) {
        lease.reportError(new LeaseLostError('lost', lease.claimId, { message: `Key ${lease.key} is free again: the grant was lost.`, cause: error }));
      } else {
        await lease.release().catch(() => {});
        throw error;
      }
    }
    throw lease.error ?? new LeaseLostError('lost', lease.claimId);
  }
}

/**
 * Refuses a key the client cannot send losslessly in a URL path (so could not renew, read or
 * release once acquired): not a string, a lone surrogate, or the dot segments `.` and `..`.
 */
export function assertAddressableKey(key: unknown): asserts key is string {
  check(typeof key === 'string' && key !== '', 'key', 'a non-empty string', key, 'claim');
  assertSendable(key, 'key', 'path');
}
