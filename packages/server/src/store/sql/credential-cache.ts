import type { AuthResult, Credential } from '../../engine/index.js';
import { standingRefusal } from '../../engine/credentials.js';

/** A key's row as authentication reads it (its standing, judged at each request's time). */
export interface KeyStanding {
  readonly credential: Credential;
  readonly blocked: boolean;
  readonly expired: boolean;
  readonly expiresAt: number | null;
  readonly suspended: boolean;
}

interface Entry {
  readonly standing: KeyStanding;
  /** When the read that produced it started (the cache clock's ms). */
  readonly readAt: number;
  /** The granted answer, built once per entry (its credential object is shared by the requests it serves). */
  readonly granted: AuthResult;
}

/** How long an entry may serve, how many there may be, and the clock that ages them. */
export interface CredentialCacheOptions {
  /** The staleness bound in ms: an entry read longer ago than this is read again (0: no cache). */
  readonly maxAgeMs: number;
  /** Entries kept at most (the oldest goes first). */
  readonly maxEntries: number;
  /** A monotonic clock in ms (default `performance.now`). */
  readonly now: () => number;
}

/**
 * Known keys' standing, kept per process for at most `maxAgeMs` after it was read (the bound:
 * a block, suspension, expiry or rate-limit change made by another process acts here within
 * `maxAgeMs`; one made by this process's controls clears the cache at once). Keys are cached
 * by their SHA-256 digest; unknown keys are not cached (each costs its statement). Concurrent
 * misses for one key share one read, and a read that overlapped a `clear()` is not kept.
 */
export class CredentialCache {
  readonly #entries = new Map<string, Entry>();
  readonly #reads = new Map<string, Promise<KeyStanding | undefined>>();
  readonly #options: CredentialCacheOptions;
  #generation = 0;

  /** An empty cache with `options`. */
  constructor(options: CredentialCacheOptions) {
    this.#options = options;
  }

  /** The standing of `id` when read less than `maxAgeMs` ago, judged at `now` (store time); else `undefined`. */
  judgeFresh(id: string, now: number): AuthResult | undefined {
    const entry = this.#entries.get(id);
    if (entry === undefined) return undefined;
    if (this.#options.now() - entry.readAt >= this.#options.maxAgeMs) {
      this.#entries.delete(id);
      return undefined;
    }
    return standingRefusal(entry.standing, entry.standing.suspended, now) ?? entry.granted;
  }

  /** Read `id` through `read` (one read at a time per key), keeping what it found. */
  read(id: string, read: () => Promise<KeyStanding | undefined>): Promise<KeyStanding | undefined> {
    const pending = this.#reads.get(id);
    if (pending !== undefined) return pending;
    const generation = this.#generation;
    const readAt = this.#options.now();
    const promise = read().then(
      (standing) => {
        if (this.#reads.get(id) === promise) this.#reads.delete(id);
        if (standing !== undefined && generation === this.#generation && this.#options.maxAgeMs > 0) this.#keep(id, standing, readAt);
        return standing;
      },
      (error: unknown) => {
        if (this.#reads.get(id) === promise) this.#reads.delete(id);
        throw error;
      },
    );
    this.#reads.set(id, promise);
    return promise;
  }

  /** Forget everything (this process changed a key's or an account's standing, or the clock). */
  clear(): void {
    this.#generation++;
    this.#entries.clear();
    this.#reads.clear();
  }

  #keep(id: string, standing: KeyStanding, readAt: number): void {
    this.#entries.delete(id);
    if (this.#entries.size >= this.#options.maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done !== true) this.#entries.delete(oldest.value);
    }
    this.#entries.set(id, { standing, readAt, granted: Object.freeze({ ok: true, credential: standing.credential }) });
  }
}
