import { AbortError } from '../core/errors/connection-errors.js';
import { ClientClosedError } from '../core/transport/client-closed-error.js';
import { lossOf } from '../leases/run-under-lease.js';
import type { SpaceLease } from './space-lease.js';
import type { SpaceContext } from './space-types.js';

/**
 * Waits for a queued claim's `granted`; rejects if the lease ends first, or leaves the queue
 * (one release) and rejects when `signal` aborts (`AbortError`) or the client closes
 * (`ClientClosedError`). While it waits, the process is kept alive, as a pending request would.
 */
export function waitForTurn(ctx: SpaceContext, lease: SpaceLease, holderSession: string, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const stops: Array<() => void> = [];
    let done = false;
    const finish = (settle: () => void): void => {
      if (done) return;
      done = true;
      for (const stop of stops) stop();
      settle();
    };
    const listen = (target: AbortSignal | undefined, onAbort: () => void): void => {
      if (!target) return;
      if (target.aborted) return void queueMicrotask(onAbort);
      target.addEventListener('abort', onAbort, { once: true });
      stops.push(() => target.removeEventListener('abort', onAbort));
    };
    // Only the scheduler's timer is pending while we wait: keep the process alive meanwhile.
    stops.push(ctx.leases.hold(holderSession));
    stops.push(lease.on('granted', () => finish(resolve)));
    listen(lease.signal, () => finish(() => reject(lossOf(lease) ?? lease.error)));
    const giveUp = (error: () => Error) => (): void =>
      finish(() => {
        void lease.release().catch((failure: unknown) => ctx.log.warn('Leaving the queue failed; no heartbeat names the place any more, so it lapses at the end of its term.', { error: String(failure) }));
        reject(error());
      });
    if (signal) listen(signal, giveUp(() => new AbortError('Stopped waiting for the key.', { cause: signal.reason })));
    listen(ctx.closeSignal, giveUp(() => new ClientClosedError()));
  });
}
