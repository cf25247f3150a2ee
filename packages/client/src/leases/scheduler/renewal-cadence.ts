import { spaceClaimDurationMs } from '../lease-kind.js';

/**
 * The renewal rhythm: a lease is renewed every third of its term, each interval scaled by a
 * jitter factor so many clients do not beat in step.
 */
export class RenewalCadence {
  readonly #ttlSeconds: number;
  readonly #jitter: number;
  readonly #random: () => number;

  constructor(ttlSeconds: number, jitter: number, random: () => number) {
    this.#ttlSeconds = ttlSeconds;
    this.#jitter = jitter;
    this.#random = random;
  }

  /** A third of `shortestTermMs` (the shortest registered lease), or of the space-claim ttl when none expires. */
  cadenceMs(shortestTermMs: number): number {
    return Number.isFinite(shortestTermMs) ? shortestTermMs / 3 : this.idleCadenceMs();
  }

  /** A third of the space-claim ttl the heartbeat asks for. */
  idleCadenceMs(): number {
    return spaceClaimDurationMs(this.#ttlSeconds) / 3;
  }

  /** A random factor in [1 − jitter, 1 + jitter]. */
  jitterFactor(): number {
    return 1 + this.#jitter * (2 * this.#random() - 1);
  }

  /** How long before its deadline a lease of `durationMs` is at risk: one (jittered) cadence. */
  atRiskLeadMs(durationMs: number): number {
    return (durationMs / 3) * (1 + this.#jitter);
  }
}
