import type { IdempotencyStore } from './idempotency-store.js';
import { systemWallClock, type WallClock } from '../monotonic-clock.js';

/** Options of a {@link MemoryIdempotencyStore}. */
export interface MemoryIdempotencyStoreOptions {
  /** Wall clock judging expiry. Default `Date.now`. */
  clock?: WallClock | undefined;
}

/**
 * An in-process {@link IdempotencyStore}: keys survive retries but not a restart. Expired entries
 * are dropped when read and swept every 256 writes.
 * @example
 * const store = new MemoryIdempotencyStore();
 */
export class MemoryIdempotencyStore implements IdempotencyStore {
  readonly #entries = new Map<string, { key: string; expiresAt: number }>();
  readonly #clock: WallClock;
  #writes = 0;

  constructor(options: MemoryIdempotencyStoreOptions = {}) {
    this.#clock = options.clock ?? systemWallClock;
  }

  /** The live key of an operation. */
  async get(operationId: string): Promise<string | undefined> {
    const entry = this.#entries.get(operationId);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.#clock.now()) {
      this.#entries.delete(operationId);
      return undefined;
    }
    return entry.key;
  }

  /** Stores (replacing) the key of an operation. */
  async put(operationId: string, key: string, ttlMs: number): Promise<void> {
    this.#entries.set(operationId, { key, expiresAt: this.#clock.now() + ttlMs });
    if (++this.#writes % 256 === 0) this.prune();
  }

  /** The live key of an operation, or `candidateKey` once stored. */
  async reserve(operationId: string, candidateKey: string, ttlMs: number): Promise<string> {
    const existing = await this.get(operationId);
    if (existing !== undefined) return existing;
    await this.put(operationId, candidateKey, ttlMs);
    return candidateKey;
  }

  /** Forgets an operation. */
  async delete(operationId: string): Promise<void> {
    this.#entries.delete(operationId);
  }

  /** Drops every expired entry; returns how many. */
  prune(): number {
    const now = this.#clock.now();
    let removed = 0;
    for (const [operationId, entry] of this.#entries) {
      if (entry.expiresAt <= now) {
        this.#entries.delete(operationId);
        removed++;
      }
    }
    return removed;
  }

  /** How many entries (live or not yet swept) are held. */
  get size(): number {
    return this.#entries.size;
  }
}
