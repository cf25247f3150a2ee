import type { ClientRuntime } from './client-runtime.js';
import { ClientClosedError } from './closable-transport.js';
import { ConflictError, NotFoundError } from './core/api-error.js';
import { assertSendable, check } from './core/argument-checks.js';
import { AbortError } from './core/connection-errors.js';
import { LeaseLostError } from './core/lease-lost-error.js';
import { LeaseholdError } from './core/leasehold-error.js';
import { pickCallOptions, type CallOptions } from './resources/call-options.js';
import { lossOf, runUnderLease } from './run-under-lease.js';
import { adoptSpaceLease, SpaceLease, type SpaceClaimAddress } from './space-lease.js';

/** Options of `claim.acquire()`, `tryAcquire()` and `run()`: a `signal`, and idempotency options for the acquire. */
export type AcquireOptions = CallOptions;

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
  readonly #runtime: ClientRuntime;
  readonly #address: SpaceClaimAddress;

  /** @internal */
  constructor(runtime: ClientRuntime, address: SpaceClaimAddress) {
    this.#runtime = runtime;
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
    const lease = await this.#send(true, options);
    return this.#awaitGrant(lease, options.signal);
  }

  /** Takes the key if it is free; `null` when someone else holds it (409 `claim_held`). */
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
   * then releases it — also when `fn` throws — and returns `fn`'s value. If the lease is lost
   * first, `lease.signal` aborts and this rejects with `LeaseLostError` (unless `fn` already
   * returned). A failed release after success is logged, not thrown: the client retries the
   * release after its next heartbeat answer (no heartbeat names it, so it expires at worst).
   * @example
   * await claim.run(async (lease) => { await copy({ signal: lease.signal }); });
   */
  async run<T>(fn: (lease: SpaceLease) => T | Promise<T>, options: AcquireOptions = {}): Promise<T> {
    const lease = await this.acquire(options);
    return runUnderLease(lease, fn, this.#runtime.log);
  }

  /** Sends the acquire through the client's grant flights: a grant that arrives after `signal` aborted is released. */
  async #send(wait: boolean, options: AcquireOptions): Promise<SpaceLease> {
    const { spaceId, key, runId, holder, holderSession, leaseSeconds } = this.#address;
    // A key the client could not address afterwards (renew, read, release) is never acquired.
    assertAddressableKey(key);
    const body = { key, scopeId: runId, holder, holderSession, leaseSeconds, wait };
    const lease = await this.#runtime.grants.obtain(options.signal, async (signal) => {
      const sentAt = this.#runtime.now(holderSession);
      const response = await this.#runtime.claims.acquire(spaceId, body, { ...pickCallOptions(options), signal });
      return adoptSpaceLease(this.#runtime, this.#address, response, sentAt, options.operationId);
    });
    if (lease === null) throw new LeaseholdError(`The acquire of ${key} answered no claim.`);
    return lease;
  }

  /** Resolves once the lease is held with a known fence. */
  async #awaitGrant(lease: SpaceLease, signal: AbortSignal | undefined): Promise<SpaceLease> {
    if (lease.status === 'queued') await this.#waitForTurn(lease, signal);
    if (lease.error) throw lease.error;
    if (lease.fence !== null) return lease;
    try {
      const { data: row } = await this.#runtime.claims.get(lease.spaceId, lease.key, pickCallOptions({ signal }));
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

  /** Waits for `granted`; rejects if the lease ends first, or leaves the queue when `signal` or the client aborts. */
  #waitForTurn(lease: SpaceLease, signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const stops: Array<() => void> = [];
      let done = false;
      const finish = (settle: () => void): void => {
        if (done) return;
        done = true;
        for (const stop of stops) stop();
        settle();
      };
      const listen = (target: AbortSignal | undefined, onAbort: () => void): void => {
        if (!target) return;
        if (target.aborted) return void queueMicrotask(onAbort);
        target.addEventListener('abort', onAbort, { once: true });
        stops.push(() => target.removeEventListener('abort', onAbort));
      };
      // Only the scheduler's timer is pending while we wait: keep the process alive meanwhile.
      stops.push(this.#runtime.scheduler(this.#address.holderSession).hold());
      stops.push(lease.on('granted', () => finish(resolve)));
      listen(lease.signal, () => finish(() => reject(lossOf(lease) ?? lease.error)));
      const giveUp = (error: () => Error) => (): void =>
        finish(() => {
          void lease.release().catch((failure: unknown) => this.#runtime.log.warn('Leaving the queue failed; no heartbeat names the place any more, so it lapses at the end of its term.', { error: String(failure) }));
          reject(error());
        });
      if (signal) listen(signal, giveUp(() => new AbortError('Stopped waiting for the key.', { cause: signal.reason })));
      listen(this.#runtime.closeSignal, giveUp(() => new ClientClosedError()));
    });
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
