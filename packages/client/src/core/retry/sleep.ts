import { AbortError } from '../errors/connection-errors.js';

/** Waits `ms` milliseconds; rejects with {@link AbortError} as soon as `signal` aborts. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/**
 * The real, abortable sleep (timers are cleared on abort, so nothing keeps the process alive).
 * @example
 * await sleep(500, controller.signal);
 */
export const sleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(new AbortError(undefined, { cause: signal.reason }));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new AbortError(undefined, { cause: signal?.reason }));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, Math.max(0, Math.min(ms, 2_147_483_647)));
    signal?.addEventListener('abort', onAbort, { once: true });
  });
