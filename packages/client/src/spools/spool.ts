import { pickCallOptions, type CallOptions } from '../resources/call-options.js';
import type { Spool as SpoolInfo } from '../resources/wire-types.js';
import type { MessageSchema, SchemaOutput } from './message-schema.js';
import { SpoolQueue } from './spool-queue.js';
import type { SpoolContext } from './spool-types.js';

/** Options of `spool.queue(name)`. */
export interface QueueOptions<S extends MessageSchema = MessageSchema> {
  /** A Standard Schema (zod, valibot, …) of the bodies: `consume()` validates each one before its handler runs. */
  schema?: S | undefined;
}

/**
 * A spool: a namespace of queues. `create()` it once, then use its queues.
 * @example
 * await lh.spool('billing').create();
 */
export class Spool {
  /** The spool's name. */
  readonly name: string;
  readonly #ctx: SpoolContext;

  /** @internal */
  constructor(ctx: SpoolContext, name: string) {
    this.#ctx = ctx;
    this.name = name;
  }

  /** Creates the spool (409 `spool_exists` if it exists; send an `idempotencyKey` to make a retried create replay). */
  async create(options: CallOptions = {}): Promise<SpoolInfo> {
    return (await this.#ctx.api.call('createSpool', { body: { name: this.name } }, pickCallOptions(options))).data;
  }

  /**
   * One queue of this spool (nothing is sent), its bodies typed by `schema` (validated by
   * `consume()`) or by the type argument (`queue<Invoice>('invoices')`, not checked at run time).
   * @example
   * const jobs = lh.spool('billing').queue('jobs', { schema: invoiceSchema }); // a zod/valibot schema: the bodies are its output type
   */
  queue<S extends MessageSchema>(name: string, options: QueueOptions<S> & { schema: S }): SpoolQueue<SchemaOutput<S>>;
  queue<T = unknown>(name: string, options?: QueueOptions): SpoolQueue<T>;
  queue(name: string, options: QueueOptions = {}): SpoolQueue<unknown> {
    return new SpoolQueue(this.#ctx, this.name, name, options.schema);
  }

  /** Deletes a message by its handle whatever its state; a leased one's lease goes stale (its holder's signal aborts). */
  async discard(handle: string, options: CallOptions = {}): Promise<void> {
    await this.#ctx.api.call('discardMessage', { path: { spool: this.name, handle } }, pickCallOptions(options));
  }
}
