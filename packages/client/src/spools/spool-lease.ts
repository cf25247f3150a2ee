import { LeaseholdError } from '../core/errors/leasehold-error.js';
import type { LeaseholdResponse } from '../core/request/request-options.js';
import { adoptLease } from '../leases/adopt-lease.js';
import type { Grant } from '../leases/grant-flights.js';
import { Lease, type LeaseInit } from '../leases/lease.js';
import { SettlingBackend, type LeaseRenewal } from '../leases/lease-backend.js';
import { grantDurationMs } from '../leases/server-time.js';
import type { CallOptions } from '../resources/call-options.js';
import type { Message as WireMessage } from '../resources/wire-types.js';
import type { Message } from './message-schema.js';
import type { SpoolContext } from './spool-types.js';

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
export class SpoolLease<T = unknown> extends Lease {
  /** The spool. */
  readonly spool: string;
  /** The queue. */
  readonly queue: string;
  /** The received message (its `handle` can discard it; `deliveryCount` counts this delivery). */
  readonly message: Message<T>;
  readonly #backend: SpoolLeaseBackend;

  /** @internal */
  constructor(init: LeaseInit & { spool: string; queue: string; message: Message<T>; backend: SpoolLeaseBackend }) {
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
export function adoptSpoolLease<T>(
  ctx: SpoolContext,
  address: { spool: string; queue: string },
  response: LeaseholdResponse<WireMessage | undefined>,
  sentAt: number,
  operationId?: string,
): Grant<SpoolLease<T>> {
  const message = response.data;
  const token = response.headers['spooler-lease'];
  if (message === undefined || token === undefined || typeof message.claimId !== 'string') {
    throw new LeaseholdError('The receive answer carries no message, Spooler-Lease or claimId.');
  }
  const claimId = message.claimId;
  const durationMs = leaseDurationMs(response.headers);
  const expiresAt = expiresAtOf(response.headers);
  return adoptLease(ctx.leases, {
    claimId,
    isSameKind: (lease): lease is SpoolLease<T> => lease instanceof SpoolLease,
    build: (onListenerError) =>
      new SpoolLease<T>({
        claimId,
        token,
        fence: message.fence ?? null,
        kind: 'spool',
        backend: new SpoolLeaseBackend(ctx, address.spool, claimId, token, operationId),
        expiresAt,
        spoolTimeoutMs: durationMs,
        onListenerError,
        spool: address.spool,
        queue: address.queue,
        message: message as Message<T>,
      }),
    // A replayed receive's lease is as old as its first answer: only what the server's clock says is left.
    durationMs: grantDurationMs(durationMs, expiresAt, response.headers, response.replayed),
    sentAt,
  });
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
 * its receive's `operationId` is deleted (the base backend).
 */
export class SpoolLeaseBackend extends SettlingBackend {
  /** How `release()` settles: nack unless `ack()` chose otherwise. */
  settlement: SpoolSettlement = { kind: 'nack' };
  readonly #ctx: SpoolContext;
  readonly #spool: string;
  readonly #token: string;
  readonly #claimId: string;

  /** @internal */
  constructor(ctx: SpoolContext, spool: string, claimId: string, token: string, operationId: string | undefined) {
    super(ctx.endings, operationId);
    this.#ctx = ctx;
    this.#spool = spool;
    this.#token = token;
    this.#claimId = claimId;
  }

  async renew(): Promise<LeaseRenewal> {
    const { headers } = await this.#ctx.api.call('renewSpoolLease', { path: { spool: this.#spool }, headers: { 'Spooler-Lease': this.#token } }, {}, this.#claimId, 'spool');
    const expiresAt = expiresAtOf(headers);
    return { durationMs: leaseDurationMs(headers), ...(expiresAt === null ? {} : { expiresAt }) };
  }

  protected async settle(options: CallOptions): Promise<void> {
    const settlement = this.settlement;
    const input = { path: { spool: this.#spool }, headers: { 'Spooler-Lease': this.#token } };
    if (settlement.kind === 'ack') await this.#ctx.api.call('ackMessage', input, options, this.#claimId, 'spool');
    else await this.#ctx.api.call('nackMessage', { ...input, body: settlement.delaySeconds === undefined ? {} : { delaySeconds: settlement.delaySeconds } }, options, this.#claimId, 'spool');
  }
}
