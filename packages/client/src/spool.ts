import type { ClientRuntime } from './client-runtime.js';
import { pickCallOptions, type CallOptions } from './resources/call-options.js';
import { consumeQueue, type ConsumeHandler, type ConsumeOptions } from './spool-consumer.js';
import { adoptSpoolLease, type SpoolLease } from './spool-lease.js';
import type { Message, Queue, Spool as SpoolInfo } from './wire-types.js';

/**
 * One queue of a spool: `put()` creates or configures it, `send()` enqueues, `receive()` leases
 * one message, `consume()` runs a handler over its messages.
 * @example
 * const invoices = lh.spool('billing').queue('invoices');
 * await invoices.put({ leaseTimeoutSeconds: 60 });
 * await invoices.send({ invoiceId: 'inv_1042' });
 */
export class SpoolQueue {
  /** The spool. */
  readonly spool: string;
  /** The queue. */
  readonly name: string;
  readonly #runtime: ClientRuntime;

  /** @internal */
  constructor(runtime: ClientRuntime, spool: string, name: string) {
    this.#runtime = runtime;
    this.spool = spool;
    this.name = name;
  }

  /** Creates the queue, or changes its lease timeout (`null`: leases never expire). */
  async put(body: { leaseTimeoutSeconds: number | null }, options: CallOptions = {}): Promise<Queue> {
    return (await this.#runtime.spools.putQueue(this.spool, this.name, body, pickCallOptions(options))).data;
  }

  /** Sends a message (any JSON), optionally invisible for `delaySeconds`; idempotent across retries. */
  async send(body: unknown, options: { delaySeconds?: number } & CallOptions = {}): Promise<Message> {
    const request = options.delaySeconds === undefined ? { body } : { body, delaySeconds: options.delaySeconds };
    return (await this.#runtime.spools.send(this.spool, this.name, request, pickCallOptions(options))).data;
  }

  /**
   * Leases the oldest visible message (sending the client's session) and registers the lease
   * with the batch heartbeat; `null` when the queue is empty (204). Aborting `signal` (or closing
   * the client) while the request is out rejects at once, and a message leased by it anyway is
   * nacked as soon as its answer arrives; a receive whose answer never arrives leaves a lease
   * that no heartbeat names, so the message is delivered again after the queue's lease timeout.
   */
  async receive(options: CallOptions = {}): Promise<SpoolLease | null> {
    // Through the grant flights: a message leased after `signal` aborted (or the client closed) is nacked at once.
    return this.#runtime.grants.obtain(options.signal, async (signal) => {
      const sentAt = this.#runtime.now();
      const response = await this.#runtime.spools.receive(this.spool, this.name, this.#runtime.session, { ...pickCallOptions(options), signal });
      if (response.status === 204 || response.data === undefined) {
        // Nothing leased: the receive is over, a later receive under the same operationId is a new one.
        await this.#runtime.forgetOperation(options.operationId);
        return null;
      }
      return adoptSpoolLease(this.#runtime, { spool: this.spool, queue: this.name }, response, sentAt, options.operationId);
    });
  }

  /**
   * Runs `handler` over the queue's messages, up to `concurrency` at a time, each under its
   * renewed lease: acked when the handler resolves; when it throws, nacked with a growing delay
   * (`backoff`: 1 s, 2 s, 4 s … up to 300 s by default) and reported to `onError` (default: a
   * warning on the logger, else on stderr); after `maxDeliveries` failed deliveries sent to the
   * `deadLetter` queue (idempotently) and acked, or discarded; left alone when the lease is lost
   * (410 `stale_token`, discarded, expired: `lease.signal` aborts). An empty queue is polled
   * every `pollIntervalMs`. Resolves once `signal` aborts (or the client closes) and the handlers
   * in flight have finished; rejects on a receive error that retrying cannot fix (after the
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
  consume(handler: ConsumeHandler, options: ConsumeOptions = {}): Promise<void> {
    return consumeQueue(this.#runtime, this, handler, options);
  }
}

/**
 * A spool: a namespace of queues. `create()` it once, then use its queues.
 * @example
 * await lh.spool('billing').create();
 */
export class Spool {
  /** The spool's name. */
  readonly name: string;
  readonly #runtime: ClientRuntime;

  /** @internal */
  constructor(runtime: ClientRuntime, name: string) {
    this.#runtime = runtime;
    this.name = name;
  }

  /** Creates the spool (409 `spool_exists` if it exists; send an `idempotencyKey` to make a retried create replay). */
  async create(options: CallOptions = {}): Promise<SpoolInfo> {
    return (await this.#runtime.spools.create(this.name, pickCallOptions(options))).data;
  }

  /** One queue of this spool (nothing is sent). */
  queue(name: string): SpoolQueue {
    return new SpoolQueue(this.#runtime, this.name, name);
  }

  /** Deletes a message by its handle whatever its state; a leased one's lease goes stale (its holder's signal aborts). */
  async discard(handle: string, options: CallOptions = {}): Promise<void> {
    await this.#runtime.spools.discard(this.name, handle, pickCallOptions(options));
  }
}
