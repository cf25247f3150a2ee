import type { Clock } from './clock.js';
import { EngineError } from './errors.js';
import { MinHeap, type HeapItem } from './min-heap.js';

/** How long an idempotency record is kept: 24 hours. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** The verdict of `begin`: run the request (`new`) or answer the stored response (`replay`). */
export type IdempotencyBegin<R> = { readonly kind: 'new' } | { readonly kind: 'replay'; readonly response: R };

interface IdempotencyRecord<R> extends HeapItem {
  readonly id: string;
  readonly fingerprint: string;
  response: R | undefined;
  done: boolean;
}

/**
 * Idempotency records per credential for 24 hours: the first request with a key runs, repeats
 * replay the response it was completed with (opaque to the engine; the HTTP pipeline completes
 * only 2xx answers and abandons every error, Stripe's rule), another request under the
 * same key is `idempotency_key_reused`, and a repeat while the first runs is
 * `idempotency_in_flight`. Records expire lazily through a min-heap, like leases.
 * @example
 * const verdict = store.begin(cred.credentialId, key, requestFingerprint('POST', path, body));
 * if (verdict.kind === 'replay') return verdict.response;
 */
export class IdempotencyStore<R = unknown> {
  readonly #clock: Clock;
  readonly #ttlMs: number;
  readonly #records = new Map<string, IdempotencyRecord<R>>();
  readonly #heap = new MinHeap<IdempotencyRecord<R>>();
  #seq = 0;

  /** A store on `clock`, keeping records `ttlMs` (default 24 h). */
  constructor(clock: Clock, ttlMs: number = IDEMPOTENCY_TTL_MS) {
    this.#clock = clock;
    this.#ttlMs = ttlMs;
  }

  /** Start a request under a (normalized) key; see the class summary for the verdicts. */
  begin(credentialId: string, key: string, fingerprint: string): IdempotencyBegin<R> {
    const now = this.#expire();
    const id = recordId(credentialId, key);
    const record = this.#records.get(id);
    if (record === undefined) {
      const fresh: IdempotencyRecord<R> = { id, fingerprint, response: undefined, done: false, dueAt: 0, seq: ++this.#seq, heapIndex: -1 };
      this.#records.set(id, fresh);
      this.#heap.schedule(fresh, now + this.#ttlMs);
      return { kind: 'new' };
    }
    if (record.fingerprint !== fingerprint) {
      throw new EngineError(
        'idempotency_key_reused',
        'This Idempotency-Key was used for a different request; use a new key.',
        'Idempotency-Key',
      );
    }
    if (!record.done) {
      throw new EngineError(
        'idempotency_in_flight',
        'A request with this Idempotency-Key is still running; retry shortly.',
        'Idempotency-Key',
      );
    }
    return { kind: 'replay', response: record.response as R };
  }

  /** Store the response of a request begun with `begin` (replayed to repeats for 24 h). */
  complete(credentialId: string, key: string, response: R): void {
    const record = this.#records.get(recordId(credentialId, key));
    if (record === undefined) return;
    record.response = response;
    record.done = true;
  }

  /** Forget a request that failed before producing an answer, so a retry runs afresh. */
  abandon(credentialId: string, key: string): void {
    const record = this.#records.get(recordId(credentialId, key));
    if (record === undefined || record.done) return;
    this.#records.delete(record.id);
    this.#heap.remove(record);
  }

  /** How many records are kept. */
  get size(): number {
    this.#expire();
    return this.#records.size;
  }

  #expire(): number {
    const now = this.#clock.now();
    for (let top = this.#heap.peek(); top !== undefined && top.dueAt <= now; top = this.#heap.peek()) {
      this.#heap.pop();
      this.#records.delete(top.id);
    }
    return now;
  }
}

function recordId(credentialId: string, key: string): string {
  return `${credentialId}\n${key}`;
}
