import type { ClientRuntime } from './client-runtime.js';
import { AbortError } from './core/connection-errors.js';
import { LeaseholdError } from './core/leasehold-error.js';
import { isRetryableError } from './core/retry-policy.js';
import { sleep } from './core/sleep.js';
import { deadLetterKey, resolveConsumeOptions, type ConsumeFailure, type ConsumeHandler, type ConsumeOptions, type ResolvedConsumeOptions } from './consume-options.js';
import type { SpoolQueue } from './spool.js';
import type { SpoolLease } from './spool-lease.js';
import type { Message } from './wire-types.js';

export type { ConsumeBackoff, ConsumeContext, ConsumeFailure, ConsumeHandler, ConsumeOptions, DeadLetter } from './consume-options.js';

/** Runs `concurrency` receive-handle-settle loops until `signal` (or the client) stops them. */
export async function consumeQueue(runtime: ClientRuntime, queue: SpoolQueue, handler: ConsumeHandler, options: ConsumeOptions): Promise<void> {
  const resolved = resolveConsumeOptions(options, queue.spool);
  const stop = options.signal ? AbortSignal.any([options.signal, runtime.closeSignal]) : runtime.closeSignal;
  const fatal = new AbortController();
  const stopped = AbortSignal.any([stop, fatal.signal]);
  const report = reporter(runtime, queue, options.onError);
  const deliver = new Delivery(runtime, resolved, handler, report);
  let failure: unknown;

  const loop = async (): Promise<void> => {
    while (!stopped.aborted) {
      let lease: SpoolLease | null;
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
        runtime.log.warn('Receiving a message failed; polling again.', { error: String(error) });
        lease = null;
      }
      if (lease === null) {
        await sleep(resolved.pollIntervalMs, stopped).catch(() => {});
        continue;
      }
      if (stopped.aborted) {
        // Received while stopping: give it straight back.
        await lease.nack().catch((error: unknown) => runtime.log.warn('Returning a message failed.', { error: String(error) }));
        return;
      }
      await deliver.handle(lease);
    }
  };

  await Promise.all(Array.from({ length: resolved.concurrency }, loop));
  if (failure !== undefined) throw failure;
}

/** One message's delivery: run the handler, then ack, nack with backoff, or dead-letter. */
class Delivery {
  constructor(
    private readonly runtime: ClientRuntime,
    private readonly options: ResolvedConsumeOptions,
    private readonly handler: ConsumeHandler,
    private readonly report: (error: unknown, message: Message, failure: ConsumeFailure) => void,
  ) {}

  async handle(lease: SpoolLease): Promise<void> {
    const { message } = lease;
    if (message.deliveryCount > this.options.maxDeliveries) {
      // Delivered more often than allowed without a recorded failure: its handler crashed the process.
      const error = new LeaseholdError(`Message ${message.id} was delivered ${message.deliveryCount} times (more than maxDeliveries ${this.options.maxDeliveries}) without being settled.`);
      return this.#giveUp(lease, error);
    }
    try {
      await this.handler(message, { lease, signal: lease.signal });
    } catch (error) {
      // A lost lease settles nothing: another receiver may get the message.
      if (lease.status === 'lost') return;
      if (message.deliveryCount >= this.options.maxDeliveries) return this.#giveUp(lease, error);
      return this.#retry(lease, error);
    }
    if (lease.status === 'lost') return;
    await this.#settle(lease, 'ack', () => lease.ack());
  }

  async #retry(lease: SpoolLease, error: unknown): Promise<void> {
    const { message } = lease;
    const retryInSeconds = this.options.delayFor(message.deliveryCount, error);
    this.report(error, message, { action: 'retry', deliveryCount: message.deliveryCount, retryInSeconds });
    await this.#settle(lease, 'nack', () => lease.nack({ delaySeconds: retryInSeconds }));
  }

  async #giveUp(lease: SpoolLease, error: unknown): Promise<void> {
    const { message } = lease;
    const deadLetter = this.options.deadLetter;
    if (deadLetter === undefined || deadLetter === 'discard') {
      this.report(error, message, { action: 'discard', deliveryCount: message.deliveryCount });
      return this.#settle(lease, 'ack', () => lease.ack());
    }
    try {
      // Same key for every delivery of this message: a crash before the ack replays this send.
      await this.runtime.spools.send(deadLetter.spool, deadLetter.queue, { body: message.body }, { idempotencyKey: deadLetterKey(message) });
    } catch (sendError) {
      this.runtime.log.error('Sending a message to its dead-letter queue failed; it is nacked and tried again.', {
        messageId: message.id,
        deadLetter,
        error: String(sendError),
      });
      return this.#retry(lease, error);
    }
    this.report(error, message, { action: 'dead-letter', deliveryCount: message.deliveryCount, deadLetter });
    await this.#settle(lease, 'ack', () => lease.ack());
  }

  async #settle(lease: SpoolLease, how: 'ack' | 'nack', settle: () => Promise<void>): Promise<void> {
    try {
      await settle();
    } catch (error) {
      this.runtime.log.warn(`Settling a message (${how}) failed; it returns to the queue when its lease ends.`, {
        claimId: lease.claimId,
        error: String(error),
      });
    }
  }
}

/** `onError`, or the default: a warning on the client's logger, else on stderr — never silent. */
function reporter(runtime: ClientRuntime, queue: SpoolQueue, onError: ConsumeOptions['onError']): (error: unknown, message: Message, failure: ConsumeFailure) => void {
  if (onError) {
    return (error, message, failure) => {
      try {
        onError(error, message, failure);
      } catch (listenerError) {
        runtime.log.error('consume onError threw.', { error: String(listenerError) });
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
    if (runtime.config.logger !== undefined) runtime.log.warn(line, { messageId: message.id, ...failure });
    else console.warn(runtime.config.redactor?.redact(line) ?? line);
  };
}
