import { setImmediate as realSetImmediate } from 'node:timers';

/**
 * Node's own `setImmediate`, taken when this module loads: a test that fakes timers later (vitest,
 * sinon) must not hold answers or log lines back until it advances its fake clock.
 */
const schedule: (callback: () => void) => unknown = realSetImmediate;

/**
 * Items handed over together once per event-loop turn, in its check phase — after the poll phase
 * has run every I/O callback that was ready — instead of one at a time as they come. The
 * node:http adapter answers a turn's requests this way: under load the server then runs the
 * JavaScript of all ready requests back to back and makes the socket writes back to back,
 * instead of alternating the two, and its peers find several answers waiting when they wake.
 * The request log writes a turn's lines in one write. An item waits at most for the rest of its
 * turn (one added while a batch is handed over goes with the next turn's).
 * Measured with `pnpm bench -- --only throughput` (bench/README.md).
 */
export class TurnBatch<T> {
  #pending: T[] = [];
  readonly #flush = (): void => {
    const batch = this.#pending;
    if (batch.length === 0) return;
    this.#pending = [];
    this.hand(batch);
  };

  /** A batch that hands each turn's items, in the order they came, to `hand`, which must not throw. */
  constructor(private readonly hand: (items: T[]) => void) {}

  /** Queues `item` for the end of this event-loop turn. */
  add(item: T): void {
    if (this.#pending.push(item) === 1) schedule(this.#flush);
  }

  /** Hands over what is queued now, without waiting for the turn to end (before exit). */
  flush(): void {
    this.#flush();
  }
}
