import type { ClientRuntime } from './client-runtime.js';
import type { LeaseLostError } from './core/lease-lost-error.js';
import { LeaseholdError } from './core/leasehold-error.js';
import type { LeaseholdResponse } from './core/request-options.js';
import type { Grant } from './leases/grant-flights.js';
import { Lease, type LeaseInit } from './leases/lease.js';
import type { LeaseBackend, LeaseRenewal } from './leases/lease-backend.js';
import { grantDurationMs } from './server-time.js';
import type { Claim } from './wire-types.js';

/** Where a space claim lives and who asked for it. */
export interface SpaceClaimAddress {
  spaceId: string;
  key: string;
  /** The run (`scopeId`) the claim belongs to. */
  runId: string;
  holder: string;
  /** The session the claim was acquired with (its scheduler heartbeats that session). */
  holderSession: string;
  /** The lease length asked at acquire and on an explicit `renew()`, in seconds. */
  leaseSeconds: number;
}

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
  runtime: ClientRuntime,
  address: SpaceClaimAddress,
  response: LeaseholdResponse<Claim>,
  sentAt: number,
  operationId?: string,
): Grant<SpaceLease> {
  const row = response.data;
  const existing = runtime.tracked(row.claimId);
  if (existing instanceof SpaceLease) return { lease: existing, fresh: false };
  if (typeof row.token !== 'string') throw new LeaseholdError(`The acquire answer for claim ${row.claimId} carries no token.`);
  const backend = new SpaceLeaseBackend(runtime, address.spaceId, address.key, address.leaseSeconds, row.token, operationId);
  const queued = row.status === 'queued';
  const lease = new SpaceLease({
    claimId: row.claimId,
    token: row.token,
    fence: queued ? null : row.fence,
    kind: 'space',
    backend,
    status: queued ? 'queued' : 'held',
    expiresAt: row.expiresAt,
    ...(row.position === undefined ? {} : { position: row.position }),
    queueDepth: row.queueDepth,
    onListenerError: runtime.onListenerError,
    spaceId: address.spaceId,
    key: address.key,
    runId: address.runId,
    replayed: response.replayed,
  });
  const durationMs = grantDurationMs(row.leaseSeconds * 1000, row.expiresAt, response.headers, response.replayed);
  return { lease: runtime.track(lease, { durationMs, sentAt }, address.holderSession), fresh: true };
}

/**
 * Renew and release of one space claim (only what they need is kept: it lives as long as the
 * lease). When the claim ends, the stored key of its acquire's `operationId` is deleted.
 */
class SpaceLeaseBackend implements LeaseBackend {
  readonly #runtime: ClientRuntime;
  readonly #spaceId: string;
  readonly #key: string;
  readonly #leaseSeconds: number;
  readonly #token: string;
  readonly #operationId: string | undefined;

  /** @internal */
  constructor(runtime: ClientRuntime, spaceId: string, key: string, leaseSeconds: number, token: string, operationId?: string) {
    this.#runtime = runtime;
    this.#spaceId = spaceId;
    this.#key = key;
    this.#leaseSeconds = leaseSeconds;
    this.#token = token;
    this.#operationId = operationId;
  }

  async renew(): Promise<LeaseRenewal> {
    const { data } = await this.#runtime.claims.renew(this.#spaceId, this.#key, { token: this.#token, leaseSeconds: this.#leaseSeconds });
    return { durationMs: data.leaseSeconds * 1000, expiresAt: data.expiresAt };
  }

  async release(observation?: unknown): Promise<void> {
    const body = observation === undefined ? { token: this.#token } : { token: this.#token, observation };
    try {
      await this.#runtime.claims.release(this.#spaceId, this.#key, body, this.#runtime.releaseOptions());
    } finally {
      await this.#runtime.forgetOperation(this.#operationId);
    }
  }

  /** One release attempt (no retries) of a lease this client gave up on (the scheduler retries it after each heartbeat answer). */
  async releaseAbandoned(): Promise<void> {
    await this.#runtime.claims.release(this.#spaceId, this.#key, { token: this.#token }, { maxRetries: 0 });
  }

  /** A run cancelled under this lease: the spec's safe cleanup, one best-effort release with the token. */
  lost(error: LeaseLostError): void {
    void this.#runtime.forgetOperation(this.#operationId);
    if (error.reason === 'cancelled') void this.cleanup();
  }

  /** One release attempt, failures logged: after a run cancellation the server still answers 200. */
  async cleanup(): Promise<void> {
    try {
      await this.#runtime.claims.release(this.#spaceId, this.#key, { token: this.#token }, { maxRetries: 0 });
    } catch (error) {
      this.#runtime.log.warn('Cleanup release after a run cancellation failed; the server drops the claim anyway.', { error: String(error) });
    }
  }
}
