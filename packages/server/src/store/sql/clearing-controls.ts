import type { MaybePromise, StoreControls } from '../operations.js';

/**
 * The controls, each that changes a key's standing, an account's or the clock clearing this
 * process's credential cache (`clear`) once it is done; `advanceClock` also re-reads the
 * database's time (`learnNow`) so `approximateNow` follows it.
 */
export function clearingCredentialCache(controls: StoreControls, clear: () => void, learnNow: () => Promise<unknown>): StoreControls {
  const clearing =
    <A extends unknown[], T>(fn: (...args: A) => MaybePromise<T>) =>
    async (...args: A): Promise<T> => {
      try {
        return await fn(...args);
      } finally {
        clear();
      }
    };
  return {
    ...controls,
    advanceClock: clearing(async (ms: number) => {
      const now = await controls.advanceClock(ms);
      await learnNow();
      return now;
    }),
    suspendAccount: clearing(controls.suspendAccount),
    updateCredential: clearing(controls.updateCredential),
  };
}
