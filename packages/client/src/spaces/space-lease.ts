import type { LeaseLostError } from '../core/errors/lease-lost-error.js';
import { LeaseholdError } from '../core/errors/leasehold-error.js';
import type { LeaseholdResponse } from '../core/request/request-options.js';
import { adoptLease } from '../leases/adopt-lease.js';
import type { Grant } from '../leases/grant-flights.js';
import { Lease, type LeaseInit } from '../leases/lease.js';
import { SettlingBackend, type LeaseRenewal } from '../leases/lease-backend.js';
import { grantDurationMs } from '../leases/server-time.js';
import type { CallOptions } from '../resources/call-options.js';
import type { Claim } from '../resources/wire-types.js';
import type { SpaceClaimAddress, SpaceContext } from './space-types.js';

/**
 * A lease on a key of a space, from `claim.acquire()` / `tryAcquire()`. Renewed by the batch
 * heartbeat; pass `signal` to the guarded work and `fence` to the systems it writes to.
 * @example
 * const lease = await lh.space(spaceId).run(runId, { holder: 'worker-1' }).claim('reports/2026-11').acquire();
 * try { await rebuild({ fence: lease.fence, signal: lease.signal }); } finally { await lease.release(); }
 */
export class SpaceLease extends Lease {
  /** The space. */
  readonly spaceId: string;
  /** The claimed key. */
  readonly key: string;
  /** The run the claim belongs to (cancelling it takes the claim away). */
  readonly runId: string;
  /** Whether the acquire answer was an idempotent replay of an earlier request's. */
  readonly replayed: boolean;

  /** @internal */
  constructor(init: LeaseInit & { spaceId: string; key: string; runId: string; replayed: boolean }) {
    super(init);
    this.spaceId = init.spaceId;
    this.key = init.key;
    this.runId = init.runId;
    this.replayed = init.replayed;
  }
}

/**
 * Builds the lease for an acquire answer and registers it (sentAt: when the acquire was sent),
 * or returns the lease this client already tracks under the same claimId (a replay: not fresh).
 */
export function adoptSpaceLease(
  ctx: SpaceContext,
  address: SpaceClaimAddress,
  response: LeaseholdResponse<Claim>,
  sentAt: number,
  operationId?: string,
): Grant<SpaceLease> {
  const row = response.data;
  return adoptLease(ctx.leases, {
    claimId: row.claimId,
    session: address.holderSession,
    isSameKind: (lease): lease is SpaceLease => lease instanceof SpaceLease,
    build: (onListenerError) => {
      if (typeof row.token !== 'string') throw new LeaseholdError(`The acquire answer for claim ${row.claimId} carries no token.`);
      const queued = row.status === 'queued';
      return new SpaceLease({
        claimId: row.claimId,
        token: row.token,
        fence: queued ? null : row.fence,
        kind: 'space',
        backend: new SpaceLeaseBackend(ctx, address, row.claimId, row.token, operationId),
        status: queued ? 'queued' : 'held',
        expiresAt: row.expiresAt,
        ...(row.position === undefined ? {} : { position: row.position }),
        queueDepth: row.queueDepth,
        onListenerError,
        spaceId: address.spaceId,
        key: address.key,
        runId: address.runId,
        replayed: response.replayed,
      });
    },
    durationMs: grantDurationMs(row.leaseSeconds * 1000, row.expiresAt, response.headers, response.replayed),
    sentAt,
  });
}

/**
 * Renew and release of one space claim (only what they need is kept: it lives as long as the
 * lease). A run cancelled under the lease gets the spec's safe cleanup: one best-effort release
 * with the token.
 */
class SpaceLeaseBackend extends SettlingBackend {
  readonly #ctx: SpaceContext;
  readonly #spaceId: string;
  readonly #key: string;
  readonly #leaseSeconds: number;
  readonly #token: string;
  readonly #claimId: string;

  constructor(ctx: SpaceContext, address: SpaceClaimAddress, claimId: string, token: string, operationId: string | undefined) {
    super(ctx.endings, operationId);
    this.#ctx = ctx;
    this.#spaceId = address.spaceId;
    this.#key = address.key;
    this.#leaseSeconds = address.leaseSeconds;
    this.#token = token;
    this.#claimId = claimId;
  }

  async renew(): Promise<LeaseRenewal> {
    const path = { spaceId: this.#spaceId, key: this.#key };
    const { data } = await this.#ctx.api.call('renewSpaceClaim', { path, body: { token: this.#token, leaseSeconds: this.#leaseSeconds } }, {}, this.#claimId, 'space');
    return { durationMs: data.leaseSeconds * 1000, expiresAt: data.expiresAt };
  }

  protected async settle(options: CallOptions, observation?: unknown): Promise<void> {
    const body = observation === undefined ? { token: this.#token } : { token: this.#token, observation };
    await this.#ctx.api.call('releaseSpaceClaim', { path: { spaceId: this.#spaceId, key: this.#key }, body }, options, this.#claimId, 'space');
  }

  /** A run cancelled under this lease: the spec's safe cleanup, one best-effort release with the token. */
  protected override onLost(error: LeaseLostError): void {
    if (error.reason === 'cancelled') void this.#cleanup();
  }

  /** One release attempt, failures logged: after a run cancellation the server still answers 200. */
  async #cleanup(): Promise<void> {
    try {
      await this.settle({ maxRetries: 0 });
    } catch (error) {
      this.#ctx.log.warn('Cleanup release after a run cancellation failed; the server drops the claim anyway.', { error: String(error) });
    }
  }
}
