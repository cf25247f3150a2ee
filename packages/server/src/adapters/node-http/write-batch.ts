import { setImmediate as realSetImmediate } from 'node:timers';

/**
 * Node's own `setImmediate`, taken when this module loads: a test that fakes timers later (vitest,
 * sinon) must not hold answers back until it advances its fake clock.
 */
const schedule: (callback: () => void) => unknown = realSetImmediate;

/**
 * Answers written together once per event-loop turn (in its check phase, after the poll phase
 * has read every request that was ready), instead of one write right after each request. Under
 * load the server then runs the JavaScript of all ready requests back to back and makes the
 * socket writes back to back, instead of alternating the two; the loopback peer is woken once
 * per batch, not once per answer. An answer waits at most for the requests read in the same
 * turn. Measured with `pnpm bench -- --only throughput` (bench/README.md).
 */
export class WriteBatch<T> {
  #pending: T[] = [];
  readonly #flush = (): void => {
    const batch = this.#pending;
    this.#pending = [];
    for (const item of batch) this.write(item);
  };

  /** A batch that writes each item with `write`, which must not throw (it would drop the rest of the turn's answers). */
  constructor(private readonly write: (item: T) => void) {}

  /** Queues `item` to be written at the end of this event-loop turn. */
  add(item: T): void {
    if (this.#pending.push(item) === 1) schedule(this.#flush);
  }
}
