import { check, checkFunction, checkNumber, isNonNegativeFinite, isPositiveFinite } from '../internal/argument-checks.js';
import { InvalidArgumentError } from '../core/errors/invalid-argument-error.js';
import type { Message as WireMessage } from '../resources/wire-types.js';
import type { Message } from './message-schema.js';
import type { SpoolLease } from './spool-lease.js';

/** What a consume handler gets besides the message. */
export interface ConsumeContext<T = unknown> {
  /** The message's lease (renewed by the batch heartbeat while the handler runs). */
  lease: SpoolLease<T>;
  /** Aborts when the lease is lost: stop the work, it will not be acked. */
  signal: AbortSignal;
}

/** Handles one message (its body a `T`, validated when the queue has a schema): resolve to ack it, throw to nack it (redelivered after the backoff). */
export type ConsumeHandler<T = unknown> = (message: Message<T>, context: ConsumeContext<T>) => unknown;

/** Exponential backoff between deliveries of a failing message: `min(max, initial × multiplier^(deliveryCount − 1))`. */
export interface ConsumeBackoff {
  /** The delay after the first failed delivery, in seconds. Default 1. */
  initialDelaySeconds?: number | undefined;
  /** The longest delay, in seconds (the server allows at most 900). Default 300. */
  maxDelaySeconds?: number | undefined;
  /** Growth per delivery. Default 2. */
  multiplier?: number | undefined;
}

/** Where a message goes after `maxDeliveries` failed deliveries: another queue, or nowhere. */
export type DeadLetter = { queue: string; spool?: string | undefined } | 'discard';

/** What consume did with a failed (or too often delivered) message, as `onError` hears it. */
export interface ConsumeFailure {
  /** `retry`: nacked, redelivered after `retryInSeconds`; `dead-letter`: sent to the dead-letter queue and acked; `discard`: acked (deleted). */
  action: 'retry' | 'dead-letter' | 'discard';
  /** This delivery's number (1 = first). */
  deliveryCount: number;
  /** The nack delay, for `retry`. */
  retryInSeconds?: number | undefined;
  /** The dead-letter queue, for `dead-letter`. */
  deadLetter?: { spool: string; queue: string } | undefined;
}

/** Options of `queue.consume()`. */
export interface ConsumeOptions {
  /** Messages handled at once. Default 1. */
  concurrency?: number | undefined;
  /** Stops receiving; `consume()` resolves once the handlers in flight finish. */
  signal?: AbortSignal | undefined;
  /** Wait after an empty receive (204) or a failed one, in ms. Default 1000. */
  pollIntervalMs?: number | undefined;
  /**
   * Delay before a failed message is delivered again (it is nacked with it), as BullMQ's
   * `backoff`: an exponential schedule (default 1 s, doubling, at most 300 s), or a function of
   * the delivery count and the error returning seconds (clamped to 0–900).
   */
  backoff?: ConsumeBackoff | ((deliveryCount: number, error: unknown) => number) | undefined;
  /** A fixed nack delay in seconds instead of `backoff` (0: redeliver at once). */
  nackDelaySeconds?: number | undefined;
  /**
   * How many deliveries a message gets (SQS's `maxReceiveCount`): when the handler fails on
   * delivery number `maxDeliveries` — or a message arrives already delivered more often (its
   * handler crashed the process) — it goes to `deadLetter` instead of back to the queue.
   * Default: unlimited (retried with `backoff` forever). Requires `deadLetter`.
   */
  maxDeliveries?: number | undefined;
  /**
   * Where messages go after `maxDeliveries`: `{ queue, spool? }` (default spool: this one) sends
   * the message's body there — with an `Idempotency-Key` derived from the message id, so a crash
   * between the send and the ack never duplicates it — then acks the original; `'discard'` acks
   * (deletes) it. If the send fails, the message is nacked with its backoff and tried again.
   */
  deadLetter?: DeadLetter | undefined;
  /**
   * Called with each handler error and what was done about it. Default: a warning on the
   * client's `logger`, or on stderr when the client has none (failures are never silent).
   */
  onError?: ((error: unknown, message: WireMessage, failure: ConsumeFailure) => void) | undefined;
}

/** The consume options resolved and checked. */
export interface ResolvedConsumeOptions {
  concurrency: number;
  pollIntervalMs: number;
  delayFor: (deliveryCount: number, error: unknown) => number;
  maxDeliveries: number;
  deadLetter: { spool: string; queue: string } | 'discard' | undefined;
}

/** The server's longest nack delay. */
const MAX_NACK_DELAY_SECONDS = 900;

const clampDelay = (seconds: number): number => (Number.isFinite(seconds) ? Math.min(MAX_NACK_DELAY_SECONDS, Math.max(0, Math.ceil(seconds))) : MAX_NACK_DELAY_SECONDS);

/** Checks `queue.consume()`'s options (an `InvalidArgumentError` names a bad one) and fills in defaults. */
export function resolveConsumeOptions(options: ConsumeOptions, spool: string): ResolvedConsumeOptions {
  const owner = 'consume';
  check(typeof options === 'object' && options !== null, 'options', 'an object', options, owner);
  checkNumber(options.concurrency, 'concurrency', 'a positive integer', (n) => Number.isSafeInteger(n) && n >= 1, owner);
  checkNumber(options.pollIntervalMs, 'pollIntervalMs', 'a non-negative number of milliseconds', isNonNegativeFinite, owner);
  checkNumber(options.nackDelaySeconds, 'nackDelaySeconds', `a number of seconds from 0 to ${MAX_NACK_DELAY_SECONDS}`, (n) => n >= 0 && n <= MAX_NACK_DELAY_SECONDS, owner);
  checkNumber(options.maxDeliveries, 'maxDeliveries', 'a positive integer', (n) => Number.isSafeInteger(n) && n >= 1, owner);
  checkFunction(options.onError, 'onError', owner);
  if (options.signal !== undefined) check(typeof (options.signal as AbortSignal)?.addEventListener === 'function', 'signal', 'an AbortSignal', options.signal, owner);
  if (options.backoff !== undefined && options.nackDelaySeconds !== undefined) {
    throw new InvalidArgumentError('backoff', 'consume: give backoff or nackDelaySeconds, not both.');
  }
  const delayFor = resolveBackoff(options);
  const deadLetter = options.deadLetter;
  if (options.maxDeliveries !== undefined && deadLetter === undefined) {
    throw new InvalidArgumentError('deadLetter', "consume: maxDeliveries needs deadLetter — { queue } to keep such messages, or 'discard' to delete them.");
  }
  let resolvedDeadLetter: ResolvedConsumeOptions['deadLetter'];
  if (deadLetter !== undefined) {
    check(options.maxDeliveries !== undefined, 'maxDeliveries', 'set when deadLetter is', options.maxDeliveries, owner);
    if (deadLetter === 'discard') resolvedDeadLetter = 'discard';
    else {
      check(typeof deadLetter === 'object' && deadLetter !== null && typeof deadLetter.queue === 'string' && deadLetter.queue !== '', 'deadLetter', "{ queue, spool? } or 'discard'", deadLetter, owner);
      check(deadLetter.spool === undefined || (typeof deadLetter.spool === 'string' && deadLetter.spool !== ''), 'deadLetter.spool', 'a spool name', deadLetter.spool, owner);
      resolvedDeadLetter = { spool: deadLetter.spool ?? spool, queue: deadLetter.queue };
    }
  }
  return {
    concurrency: options.concurrency ?? 1,
    pollIntervalMs: options.pollIntervalMs ?? 1000,
    delayFor,
    maxDeliveries: options.maxDeliveries ?? Number.POSITIVE_INFINITY,
    deadLetter: resolvedDeadLetter,
  };
}

function resolveBackoff(options: ConsumeOptions): (deliveryCount: number, error: unknown) => number {
  const fixed = options.nackDelaySeconds;
  if (fixed !== undefined) return () => clampDelay(fixed);
  const backoff = options.backoff;
  if (typeof backoff === 'function') {
    return (deliveryCount, error) => {
      const seconds = backoff(deliveryCount, error);
      return clampDelay(typeof seconds === 'number' ? seconds : 0);
    };
  }
  const owner = 'consume';
  if (backoff !== undefined) check(typeof backoff === 'object' && backoff !== null, 'backoff', 'an object or a function', backoff, owner);
  checkNumber(backoff?.initialDelaySeconds, 'backoff.initialDelaySeconds', 'a non-negative number of seconds', isNonNegativeFinite, owner);
  checkNumber(backoff?.maxDelaySeconds, 'backoff.maxDelaySeconds', 'a non-negative number of seconds', isNonNegativeFinite, owner);
  checkNumber(backoff?.multiplier, 'backoff.multiplier', 'a number of at least 1', (n) => isPositiveFinite(n) && n >= 1, owner);
  const initial = backoff?.initialDelaySeconds ?? 1;
  const max = backoff?.maxDelaySeconds ?? 300;
  const multiplier = backoff?.multiplier ?? 2;
  return (deliveryCount) => clampDelay(Math.min(max, initial * multiplier ** Math.min(64, Math.max(0, deliveryCount - 1))));
}

/** The `Idempotency-Key` of a message's dead-letter send: one per source message, so a repeat replays. */
export function deadLetterKey(message: WireMessage): string {
  return `lh-dead-letter:${message.spool}:${message.queue}:${message.id}`.slice(0, 255);
}
