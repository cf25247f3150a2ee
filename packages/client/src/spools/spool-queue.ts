import { acquireUnlessEnded } from '../leases/replayed-grant.js';
import { pickCallOptions, type CallOptions } from '../resources/call-options.js';
import type { Queue } from '../resources/wire-types.js';
import type { ConsumeHandler, ConsumeOptions } from './consume-options.js';
import type { Message, MessageSchema } from './message-schema.js';
import { consumeQueue } from './spool-consumer.js';
import { adoptSpoolLease, type SpoolLease } from './spool-lease.js';
import type { SpoolContext } from './spool-types.js';

/**
 * One queue of a spool, its message bodies typed `T` (`spool.queue<Invoice>('invoices')`, or
 * inferred from a schema): `put()` creates or configures it, `send()` enqueues, `receive()`
 * leases one message, `consume()` runs a handler over its messages (validating each body against
 * the queue's schema, when it has one).
 * @example
 * const invoices = lh.spool('billing').queue<{ invoiceId: string }>('invoices');
 * await invoices.put({ leaseTimeoutSeconds: 60 });
 * await invoices.send({ invoiceId: 'inv_1042' });
 */
export class SpoolQueue<T = unknown> {
  /** The spool. */
  readonly spool: string;
  /** The queue. */
  readonly name: string;
  /** The schema `consume()` validates bodies with, if any. */
  readonly schema: MessageSchema<T> | undefined;
  readonly #ctx: SpoolContext;

  /** @internal */
  constructor(ctx: SpoolContext, spool: string, name: string, schema?: MessageSchema<T>) {
    this.#ctx = ctx;
    this.spool = spool;
    this.name = name;
    this.schema = schema;
  }

  /** Creates the queue, or changes its lease timeout (`null`: leases never expire). */
  async put(body: { leaseTimeoutSeconds: number | null }, options: CallOptions = {}): Promise<Queue> {
    return (await this.#ctx.api.call('putQueue', { path: { spool: this.spool, queue: this.name }, body }, pickCallOptions(options))).data;
  }

  /** Sends a message (a `T`, as JSON), optionally invisible for `delaySeconds`; idempotent across retries. */
  async send(body: T, options: { delaySeconds?: number } & CallOptions = {}): Promise<Message<T>> {
    const request = options.delaySeconds === undefined ? { body } : { body, delaySeconds: options.delaySeconds };
    return (await this.#ctx.api.call('sendMessage', { path: { spool: this.spool, queue: this.name }, body: request }, pickCallOptions(options))).data as Message<T>;
  }

  /**
   * Leases the oldest visible message (sending the client's session) and registers the lease
   * with the batch heartbeat; `null` when the queue is empty (204). Aborting `signal` (or closing
   * the client) while the request is out rejects at once, and a message leased by it anyway is
   * nacked as soon as its answer arrives; a receive whose answer never arrives leaves a lease
   * that no heartbeat names, so the message is delivered again after the queue's lease timeout.
   * The body is not validated here (`consume()` runs the schema).
   */
  async receive(options: CallOptions = {}): Promise<SpoolLease<T> | null> {
    const ctx = this.#ctx;
    // Through the grant flights: a message leased after `signal` aborted (or the client closed) is nacked at once.
    // A replay (a restarted worker's operationId) whose lease already ended is dropped, and the queue received from afresh.
    return ctx.grants.obtain(options.signal, (signal) =>
      acquireUnlessEnded(async () => {
        const sentAt = ctx.leases.now();
        const response = await ctx.api.call('receiveMessage', { path: { spool: this.spool, queue: this.name }, headers: { 'Leasehold-Session': ctx.leases.session } }, { ...pickCallOptions(options), signal });
        if (response.status === 204 || response.data === undefined) {
          // Nothing leased: the receive is over, a later receive under the same operationId is a new one.
          await ctx.endings.forgetOperation(options.operationId);
          return null;
        }
        return { grant: adoptSpoolLease<T>(ctx, { spool: this.spool, queue: this.name }, response, sentAt, options.operationId), replayed: response.replayed };
      }, ctx.log),
    );
  }

  /**
   * Runs `handler` over the queue's messages, up to `concurrency` at a time, each under its
   * renewed lease: acked when the handler resolves; when it throws (or the body fails the queue's
   * schema: `MessageSchemaError`), nacked with a growing delay (`backoff`: 1 s, 2 s, 4 s … up to
   * 300 s by default) and reported to `onError` (default: a warning on the logger, else on
   * stderr); after `maxDeliveries` failed deliveries sent to the `deadLetter` queue
   * (idempotently) and acked, or discarded; left alone when the lease is lost (410
   * `stale_token`, discarded, expired: `lease.signal` aborts). An empty queue is polled every
   * `pollIntervalMs`. Resolves once `signal` aborts (or the client closes) and the handlers in
   * flight have finished; rejects on a receive error that retrying cannot fix (after the
   * handlers in flight finish). Bad options throw `InvalidArgumentError` at once.
   * @example
   * const stop = new AbortController();
   * const done = invoices.consume(async (message, { signal }) => charge(message.body, { signal }), {
   *   concurrency: 4,
   *   signal: stop.signal,
   *   maxDeliveries: 5,
   *   deadLetter: { queue: 'invoices-dead' },
   * });
   * // later: stop.abort(); await done;
   */
  consume(handler: ConsumeHandler<T>, options: ConsumeOptions = {}): Promise<void> {
    return consumeQueue(this.#ctx, this, handler, options);
  }
}
