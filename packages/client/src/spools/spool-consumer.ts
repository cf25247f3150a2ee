import { ABANDONED_LEASE_WATCH_MS } from '../leases/scheduler/abandoned-leases.js';
import { AbortError } from '../core/errors/connection-errors.js';
import { LeaseholdError } from '../core/errors/leasehold-error.js';
import { isRetryableError } from '../core/retry/retryable.js';
import { sleep } from '../core/retry/sleep.js';
import type { Message as WireMessage } from '../resources/wire-types.js';
import { deadLetterKey, resolveConsumeOptions, type ConsumeFailure, type ConsumeHandler, type ConsumeOptions, type ResolvedConsumeOptions } from './consume-options.js';
import { validateMessage, type Message, type MessageSchema } from './message-schema.js';
import type { SpoolLease } from './spool-lease.js';
import type { SpoolContext } from './spool-types.js';

/** The queue a consumer reads: where it is, and its receive. */
export interface ConsumedQueue<T> {
  readonly spool: string;
  readonly name: string;
  /** The bodies' schema, when the queue has one. */
  readonly schema: MessageSchema<T> | undefined;
  receive(): Promise<SpoolLease<T> | null>;
}

type Report = (error: unknown, message: WireMessage, failure: ConsumeFailure) => void;

/** Runs `concurrency` receive-handle-settle loops until `signal` (or the client) stops them. */
export async function consumeQueue<T>(ctx: SpoolContext, queue: ConsumedQueue<T>, handler: ConsumeHandler<T>, options: ConsumeOptions): Promise<void> {
  const resolved = resolveConsumeOptions(options, queue.spool);
  const stop = options.signal ? AbortSignal.any([options.signal, ctx.closeSignal]) : ctx.closeSignal;
  const fatal = new AbortController();
  const stopped = AbortSignal.any([stop, fatal.signal]);
  const deliver = new Delivery(ctx, resolved, handler, queue.schema, reporter(ctx, queue, options.onError));
  let failure: unknown;

  const loop = async (): Promise<void> => {
    while (!stopped.aborted) {
      let lease: SpoolLease<T> | null;
      try {
        // Not aborted by `signal`: an answer cut off mid-flight would leave a message leased.
        lease = await queue.receive();
      } catch (error) {
        if (stopped.aborted || error instanceof AbortError) return;
        if (!isRetryableError(error)) {
          failure ??= error;
          fatal.abort(error);
          return;
        }
        ctx.log.warn('Receiving a message failed; polling again.', { error: String(error) });
        lease = null;
      }
      if (lease === null) {
        await sleep(resolved.pollIntervalMs, stopped).catch(() => {});
        continue;
      }
      if (stopped.aborted) {
        // Received while stopping: give it straight back.
        await lease.nack().catch((error: unknown) => ctx.log.warn('Returning a message failed.', { error: String(error) }));
        return;
      }
      await deliver.handle(lease);
    }
  };

  await Promise.all(Array.from({ length: resolved.concurrency }, loop));
  if (failure !== undefined) throw failure;
}

/** One message's delivery: validate, run the handler, then ack, nack with backoff, or dead-letter. */
class Delivery<T> {
  constructor(
    private readonly ctx: SpoolContext,
    private readonly options: ResolvedConsumeOptions,
    private readonly handler: ConsumeHandler<T>,
    private readonly schema: MessageSchema<T> | undefined,
    private readonly report: Report,
  ) {}

  async handle(lease: SpoolLease<T>): Promise<void> {
    const message = lease.message as WireMessage;
    if (message.deliveryCount > this.options.maxDeliveries) {
      // Delivered more often than allowed without a recorded failure: its handler crashed the process.
      const error = new LeaseholdError(`Message ${message.id} was delivered ${message.deliveryCount} times (more than maxDeliveries ${this.options.maxDeliveries}) without being settled.`);
      return this.#giveUp(lease, error);
    }
    try {
      // An invalid body (`MessageSchemaError`) takes the same failure path as a throwing handler.
      const body = this.schema === undefined ? (lease.message as Message<T>) : await validateMessage(this.schema, message);
      await this.handler(body, { lease, signal: lease.signal });
    } catch (error) {
      // A lost lease settles nothing: another receiver may get the message.
      if (lease.status === 'lost') return;
      if (message.deliveryCount >= this.options.maxDeliveries) return this.#giveUp(lease, error);
      return this.#retry(lease, error);
    }
    if (lease.status === 'lost') return;
    await this.#settle(lease, 'ack', () => lease.ack());
  }

  async #retry(lease: SpoolLease<T>, error: unknown): Promise<void> {
    const message = lease.message as WireMessage;
    const retryInSeconds = this.options.delayFor(message.deliveryCount, error);
    this.report(error, message, { action: 'retry', deliveryCount: message.deliveryCount, retryInSeconds });
    await this.#settle(lease, 'nack', () => lease.nack({ delaySeconds: retryInSeconds }));
  }

  async #giveUp(lease: SpoolLease<T>, error: unknown): Promise<void> {
    const message = lease.message as WireMessage;
    const deadLetter = this.options.deadLetter;
    if (deadLetter === undefined || deadLetter === 'discard') {
      this.report(error, message, { action: 'discard', deliveryCount: message.deliveryCount });
      return this.#settle(lease, 'ack', () => lease.ack());
    }
    try {
      // Same key for every delivery of this message: a crash before the ack replays this send.
      await this.ctx.api.call('sendMessage', { path: { spool: deadLetter.spool, queue: deadLetter.queue }, body: { body: message.body } }, { idempotencyKey: deadLetterKey(message) });
    } catch (sendError) {
      this.ctx.log.error('Sending a message to its dead-letter queue failed; it is nacked and tried again.', {
        messageId: message.id,
        deadLetter,
        error: String(sendError),
      });
      return this.#retry(lease, error);
    }
    this.report(error, message, { action: 'dead-letter', deliveryCount: message.deliveryCount, deadLetter });
    await this.#settle(lease, 'ack', () => lease.ack());
  }

  async #settle(lease: SpoolLease<T>, how: 'ack' | 'nack', settle: () => Promise<void>): Promise<void> {
    try {
      await settle();
    } catch (error) {
      // What happens next (the renewal scheduler's abandoned leases): the lease is no longer renewed;
      // the settle is retried only after heartbeat answers, which come only while other leases are renewed.
      const otherwise = how === 'ack' ? 'the message is delivered again' : 'the message is visible again';
      this.ctx.log.warn(`Settling a message (${how}) failed; its lease is no longer renewed. The ${how} is retried after this client's next heartbeat answers (only while it renews other leases, for up to ${ABANDONED_LEASE_WATCH_MS / 60_000} min); unless a retry gets through first, ${otherwise} once the lease expires.`, {
        claimId: lease.claimId,
        error: String(error),
      });
    }
  }
}

/** `onError`, or the default: a warning on the client's logger, else on stderr — never silent. */
function reporter(ctx: SpoolContext, queue: { spool: string; name: string }, onError: ConsumeOptions['onError']): Report {
  if (onError) {
    return (error, message, failure) => {
      try {
        onError(error, message, failure);
      } catch (listenerError) {
        ctx.log.error('consume onError threw.', { error: String(listenerError) });
      }
    };
  }
  return (error, message, failure) => {
    const what =
      failure.action === 'retry'
        ? `nacked, delivered again in ${failure.retryInSeconds ?? 0} s`
        : failure.action === 'dead-letter'
          ? `sent to dead-letter queue ${failure.deadLetter?.spool}/${failure.deadLetter?.queue}`
          : 'discarded (maxDeliveries reached)';
    const line = `Leasehold consume ${queue.spool}/${queue.name}: the handler failed on message ${message.id} (delivery ${failure.deliveryCount}); ${what}: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`;
    if (ctx.hasLogger) ctx.log.warn(line, { messageId: message.id, ...failure });
    else console.warn(ctx.redactor.redact(line));
  };
}
