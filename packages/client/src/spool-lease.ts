import type { ClientRuntime } from './client-runtime.js';
import { LeaseholdError } from './core/leasehold-error.js';
import type { LeaseholdResponse } from './core/request-options.js';
import type { Grant } from './leases/grant-flights.js';
import { Lease, type LeaseInit } from './leases/lease.js';
import type { LeaseBackend, LeaseRenewal } from './leases/lease-backend.js';
import type { CallOptions } from './resources/call-options.js';
import type { Message } from './wire-types.js';

/** How a settled spool lease ends: ack deletes the message; nack returns it (after `delaySeconds`). */
export type SpoolSettlement = { kind: 'ack' } | { kind: 'nack'; delaySeconds?: number | undefined };

/**
 * A received queue message under its lease. Renewed (reset to the queue's timeout) by the batch
 * heartbeat. `ack()` deletes the message, `nack()` (and `release()`) returns it to the queue;
 * both reject with `GoneError` (`stale_token`) when the lease no longer settles anything.
 * @example
 * const lease = await lh.spool('billing').queue('invoices').receive();
 * if (lease) { await charge(lease.message.body, { signal: lease.signal }); await lease.ack(); }
 */
export class SpoolLease extends Lease {
  /** The spool. */
  readonly spool: string;
  /** The queue. */
  readonly queue: string;
  /** The received message (its `handle` can discard it; `deliveryCount` counts this delivery). */
  readonly message: Message;
  readonly #backend: SpoolLeaseBackend;

  /** @internal */
  constructor(init: LeaseInit & { spool: string; queue: string; message: Message; backend: SpoolLeaseBackend }) {
    super(init);
    this.spool = init.spool;
    this.queue = init.queue;
    this.message = init.message;
    this.#backend = init.backend;
  }

  /** Settles the message as done (deleted); renewals stop at once. Idempotent with `nack`/`release`: the first wins. */
  ack(): Promise<void> {
    return this.#settle({ kind: 'ack' });
  }

  /** Returns the message to its queue, visible again after `delaySeconds` (default 0). */
  nack(options: { delaySeconds?: number } = {}): Promise<void> {
    return this.#settle({ kind: 'nack', delaySeconds: options.delaySeconds });
  }

  #settle(settlement: SpoolSettlement): Promise<void> {
    if (this.status === 'held') this.#backend.settlement = settlement;
    return this.release();
  }
}

/** Builds the lease of a 200 receive answer and registers it (sentAt: when the receive was sent). */
export function adoptSpoolLease(
  runtime: ClientRuntime,
  address: { spool: string; queue: string },
  response: LeaseholdResponse<Message | undefined>,
  sentAt: number,
  operationId?: string,
): Grant<SpoolLease> {
  const message = response.data;
  const token = response.headers['spooler-lease'];
  if (message === undefined || token === undefined || typeof message.claimId !== 'string') {
    throw new LeaseholdError('The receive answer carries no message, Spooler-Lease or claimId.');
  }
  const backend = new SpoolLeaseBackend(runtime, address.spool, token, operationId);
  const durationMs = leaseDurationMs(response.headers);
  const lease = new SpoolLease({
    claimId: message.claimId,
    token,
    fence: message.fence ?? null,
    kind: 'spool',
    backend,
    expiresAt: expiresAtOf(response.headers),
    spoolTimeoutMs: durationMs,
    onListenerError: runtime.onListenerError,
    spool: address.spool,
    queue: address.queue,
    message,
  });
  return { lease: runtime.track(lease, { durationMs, sentAt }), fresh: true };
}

/** `Spooler-Lease-Timeout` in ms; `null` (never expires) when absent. */
function leaseDurationMs(headers: Readonly<Record<string, string>>): number | null {
  const seconds = Number(headers['spooler-lease-timeout']);
  return headers['spooler-lease-timeout'] !== undefined && Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : null;
}

/** `Spooler-Lease-Expires-At` as epoch ms; `null` when absent. */
function expiresAtOf(headers: Readonly<Record<string, string>>): number | null {
  const raw = headers['spooler-lease-expires-at'];
  const ms = raw === undefined ? Number.NaN : Date.parse(raw);
  return Number.isFinite(ms) ? ms : null;
}

/**
 * Internal: renew (reset) and settle of one spool lease. When the lease ends, the stored key of
 * its receive's `operationId` is deleted (a later receive under that id is a new receive).
 */
export class SpoolLeaseBackend implements LeaseBackend {
  /** How `release()` settles: nack unless `ack()` chose otherwise. */
  settlement: SpoolSettlement = { kind: 'nack' };
  readonly #runtime: ClientRuntime;
  readonly #spool: string;
  readonly #token: string;
  readonly #operationId: string | undefined;

  /** @internal */
  constructor(runtime: ClientRuntime, spool: string, token: string, operationId?: string) {
    this.#runtime = runtime;
    this.#spool = spool;
    this.#token = token;
    this.#operationId = operationId;
  }

  async renew(): Promise<LeaseRenewal> {
    const { headers } = await this.#runtime.spools.renew(this.#spool, this.#token);
    const expiresAt = expiresAtOf(headers);
    return { durationMs: leaseDurationMs(headers), ...(expiresAt === null ? {} : { expiresAt }) };
  }

  async release(): Promise<void> {
    try {
      await this.#settle(this.#runtime.releaseOptions());
    } finally {
      await this.#runtime.forgetOperation(this.#operationId);
    }
  }

  /** The lease is gone: its receive operation is over. */
  lost(): void {
    void this.#runtime.forgetOperation(this.#operationId);
  }

  /** One settle attempt (no retries) of a lease this client gave up on (the scheduler retries it after each heartbeat answer). */
  async releaseAbandoned(): Promise<void> {
    await this.#settle({ maxRetries: 0 });
  }

  async #settle(options: CallOptions): Promise<void> {
    const settlement = this.settlement;
    if (settlement.kind === 'ack') await this.#runtime.spools.ack(this.#spool, this.#token, options);
    else await this.#runtime.spools.nack(this.#spool, this.#token, settlement.delaySeconds === undefined ? {} : { delaySeconds: settlement.delaySeconds }, options);
  }
}
