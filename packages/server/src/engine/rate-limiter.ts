import type { Clock } from './clock.js';

/** A rate-limit verdict: allowed, or the whole seconds (≥ 1) to wait. */
export type RateDecision = { readonly allowed: true } | { readonly allowed: false; readonly retryAfterSeconds: number };

/** The one "allowed" verdict (immutable, so every request can share it). */
const ALLOWED: RateDecision = Object.freeze({ allowed: true });

interface Bucket {
  tokens: number;
  at: number;
  rate: number;
}

/**
 * Per-credential token buckets on the injected clock: `rate` tokens per second, a burst of one
 * second's worth (at least one request). Buckets refill lazily when consulted, so idle credentials cost nothing.
 */
export class RateLimiter {
  readonly #clock: Clock;
  readonly #buckets = new Map<string, Bucket>();

  /** A limiter reading time from `clock`. */
  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Take one token for `credentialId` at `ratePerSecond` (`null`: unlimited). */
  take(credentialId: string, ratePerSecond: number | null): RateDecision {
    if (ratePerSecond === null || !(ratePerSecond > 0)) {
      if (this.#buckets.size !== 0) this.#buckets.delete(credentialId);
      return ALLOWED;
    }
    const now = this.#clock.now();
    let bucket = this.#buckets.get(credentialId);
    if (bucket === undefined || bucket.rate !== ratePerSecond) {
      bucket = { tokens: Math.max(1, ratePerSecond), at: now, rate: ratePerSecond };
      this.#buckets.set(credentialId, bucket);
    }
    const elapsed = Math.max(0, now - bucket.at) / 1000;
    bucket.tokens = Math.min(Math.max(1, ratePerSecond), bucket.tokens + elapsed * ratePerSecond);
    bucket.at = now;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return ALLOWED;
    }
    const retryAfterSeconds = Math.max(1, Math.ceil((1 - bucket.tokens) / ratePerSecond));
    return { allowed: false, retryAfterSeconds };
  }

  /** Forget every bucket (for tests). */
  reset(): void {
    this.#buckets.clear();
  }
}
