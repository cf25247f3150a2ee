import type { Logger } from '../../core/logger.js';
import { heartbeatRetryDelayMs, type BackoffSettings } from '../../core/retry/heartbeat-backoff.js';
import { isTransientHeartbeatError, retryAfterMsOf, statusOf } from '../../core/retry/retryable.js';
import type { HeartbeatFailureEvent, HeartbeatRetryOptions } from './renewal-scheduler-options.js';

/** What the retry schedule needs to know when a heartbeat fails. */
export interface FailureContext {
  /** The current cadence: no retry waits longer than one. */
  cadenceMs: number;
  /** Time left until the earliest local deadline (`Infinity`: none). */
  untilDeadlineMs: number;
  /** Jitter factor around 1. */
  factor: number;
}

/**
 * The retry schedule of one scheduler's heartbeats after failures: consecutive failures, the
 * delay before the next attempt (backoff from `core/retry`), and what is logged about them.
 */
export class HeartbeatRetries {
  readonly #settings: BackoffSettings;
  readonly #isTransient: (error: unknown) => boolean;
  readonly #log: (level: keyof Logger, message: string, fields: Record<string, unknown>) => void;
  #failures = 0;

  constructor(
    retry: HeartbeatRetryOptions | undefined,
    isTransient: ((error: unknown) => boolean) | undefined,
    log: (level: keyof Logger, message: string, fields: Record<string, unknown>) => void,
  ) {
    this.#settings = { initialDelayMs: 500, maxDelayMs: 30_000, minDelayMs: 100, ...retry };
    this.#isTransient = isTransient ?? isTransientHeartbeatError;
    this.#log = log;
  }

  /** Consecutive failures so far (0 after a usable answer). */
  get failures(): number {
    return this.#failures;
  }

  /** A usable answer: the next failure is a first one again. */
  reset(): void {
    this.#failures = 0;
  }

  /** Counts a failed heartbeat. */
  count(): void {
    this.#failures += 1;
  }

  /**
   * Decides, after a counted failure, when to try again. Decision: a non-transient rejection of the
   * whole heartbeat (401, 402, 403, 400, ...) says nothing about any single lease, and dropping
   * leases silently would let their work go on unguarded. So it is logged as an error and retried
   * like a transient failure: each lease is then aborted at its own local deadline unless a later
   * heartbeat or explicit renew succeeds.
   */
  next(error: unknown, context: FailureContext): HeartbeatFailureEvent {
    const transient = this.#isTransient(error);
    const retryInMs = heartbeatRetryDelayMs(
      { failures: this.#failures, ...context, retryAfterMs: retryAfterMsOf(error) },
      this.#settings,
    );
    if (this.#failures === 1 || !transient) {
      this.#log(transient ? 'warn' : 'error', 'Lease heartbeat failed; retrying until local deadlines.', {
        status: statusOf(error),
        transient,
        attempt: this.#failures,
        retryInMs,
      });
    }
    return { error, transient, attempt: this.#failures, retryInMs };
  }
}
