import type { ClientRuntime } from './client-runtime.js';
import { AbortError } from './core/connection-errors.js';
import { isRetryableError } from './core/retry-policy.js';
import { sleep } from './core/sleep.js';
import type { SpoolQueue } from './spool.js';
import type { SpoolLease } from './spool-lease.js';
import type { Message } from './wire-types.js';

/** What a consume handler gets besides the message. */
export interface ConsumeContext {
  /** The message's lease (renewed by the batch heartbeat while the handler runs). */
  lease: SpoolLease;
  /** Aborts when the lease is lost: stop the work, it will not be acked. */
  signal: AbortSignal;
}

/** Handles one message: resolve to ack it, throw to nack it. */
export type ConsumeHandler = (message: Message, context: ConsumeContext) => unknown;

/** Options of `queue.consume()`. */
export interface ConsumeOptions {
  /** Messages handled at once. Default 1. */
  concurrency?: number | undefined;
  /** Stops receiving; `consume()` resolves once the handlers in flight finish. */
  signal?: AbortSignal | undefined;
  /** Wait after an empty receive (204) or a failed one, in ms. Default 1000. */
  pollIntervalMs?: number | undefined;
  /** Visibility delay of a nacked message, in seconds. Default 0. */
  nackDelaySeconds?: number | undefined;
  /** Called with each handler error (the message was nacked). Default: logged as a warning. */
  onError?: ((error: unknown, message: Message) => void) | undefined;
}

/** Runs `concurrency` receive-handle-settle loops until `signal` (or the client) stops them. */
export async function consumeQueue(runtime: ClientRuntime, queue: SpoolQueue, handler: ConsumeHandler, options: ConsumeOptions): Promise<void> {
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 1));
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const stop = options.signal ? AbortSignal.any([options.signal, runtime.closeSignal]) : runtime.closeSignal;
  const fatal = new AbortController();
  const stopped = AbortSignal.any([stop, fatal.signal]);
  let failure: unknown;

  const settle = async (lease: SpoolLease, ok: boolean): Promise<void> => {
    try {
      if (ok) await lease.ack();
      else await lease.nack({ delaySeconds: options.nackDelaySeconds ?? 0 });
    } catch (error) {
      runtime.log.warn(`Settling a message (${ok ? 'ack' : 'nack'}) failed; it returns to the queue when its lease ends.`, {
        claimId: lease.claimId,
        error: String(error),
      });
    }
  };

  const handle = async (lease: SpoolLease): Promise<void> => {
    let ok = true;
    try {
      await handler(lease.message, { lease, signal: lease.signal });
    } catch (error) {
      ok = false;
      if (lease.status !== 'lost') report(error, lease.message);
    }
    // A lost lease settles nothing: another receiver may get the message.
    if (lease.status === 'lost') return;
    await settle(lease, ok);
  };

  const report = (error: unknown, message: Message): void => {
    if (options.onError) {
      try {
        options.onError(error, message);
      } catch (listenerError) {
        runtime.log.error('consume onError threw.', { error: String(listenerError) });
      }
    } else {
      runtime.log.warn('A message handler failed; the message was nacked.', { messageId: message.id, error: String(error) });
    }
  };

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
        await sleep(pollIntervalMs, stopped).catch(() => {});
        continue;
      }
      if (stopped.aborted) {
        // Received while stopping: give it straight back.
        await lease.nack().catch((error: unknown) => runtime.log.warn('Returning a message failed.', { error: String(error) }));
        return;
      }
      await handle(lease);
    }
  };

  await Promise.all(Array.from({ length: concurrency }, loop));
  if (failure !== undefined) throw failure;
}
