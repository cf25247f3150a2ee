/**
 * Sending heartbeats: one request per batch of named leases, the flight of an attempt (abandoned
 * when it outlives its timeout), the sender that runs them, and the retry schedule after a failure.
 */
import { UnexpectedResponseError } from '../../core/errors/unexpected-response-error.js';
import type { Logger } from '../../core/logger.js';
import { heartbeatRetryDelayMs, type BackoffSettings } from '../../core/retry/heartbeat-backoff.js';
import { isTransientHeartbeatError, retryAfterMsOf, statusOf } from '../../core/retry/retryable.js';
import type { HeartbeatResponse, HeartbeatResult, HeartbeatRetryOptions, SendHeartbeat } from './renewal-scheduler-options.js';
import type { HeartbeatFailureEvent } from './scheduler-reports.js';

/** The most `claimIds` one heartbeat may name (the spec's `maxItems`). */
export const MAX_CLAIM_IDS_PER_HEARTBEAT = 10_000;

/**
 * Sends ONE logical heartbeat naming `claimIds`: a single request when they fit, else
 * ceil(N / `maxIds`) requests in parallel whose acks are concatenated (any failure fails it).
 * With no ids at all it still sends one request (an empty list touches nothing).
 */
export async function sendNamedHeartbeat<B extends object>(
  send: (body: B & { claimIds: string[] }) => Promise<HeartbeatResponse>,
  body: B,
  claimIds: readonly string[],
  maxIds: number = MAX_CLAIM_IDS_PER_HEARTBEAT,
): Promise<HeartbeatResponse> {
  if (claimIds.length <= maxIds) return send({ ...body, claimIds: [...claimIds] });
  const batches: Array<Promise<HeartbeatResponse>> = [];
  for (let start = 0; start < claimIds.length; start += maxIds) {
    batches.push(send({ ...body, claimIds: claimIds.slice(start, start + maxIds) }));
  }
  const answers = await Promise.all(batches);
  const results: HeartbeatResult[] = [];
  for (const answer of answers) {
    if (typeof answer !== 'object' || answer === null || !Array.isArray(answer.results)) return answer;
    for (const result of answer.results) results.push(result);
  }
  return { object: 'list', results };
}

/** What to do with a flight's outcome (never called once it is abandoned). */
export interface FlightHandlers {
  /** The heartbeat answered. */
  answer(response: HeartbeatResponse): void;
  /** The heartbeat call rejected (or threw). */
  error(error: unknown): void;
  /** A handler itself threw: the scheduler's bookkeeping failed. */
  bug(error: unknown): void;
}

/** One heartbeat attempt: when it was sent, what it must cover, and how to abandon it. */
export class HeartbeatFlight {
  /** Aborted when the attempt is abandoned; passed to the heartbeat call. */
  readonly controller = new AbortController();
  /** Its sequence number among the scheduler's heartbeats. */
  readonly sequence: number;
  /** Registrations up to this stamp were known when it was sent: its answer must list them. */
  readonly generation: number;
  /** When it was sent (monotonic ms). */
  readonly sentAt: number;
  /** When it is given up as timed out (monotonic ms). */
  readonly timeoutAt: number;
  #abandoned = false;

  constructor(init: { sequence: number; generation: number; sentAt: number; timeoutAt: number }) {
    this.sequence = init.sequence;
    this.generation = init.generation;
    this.sentAt = init.sentAt;
    this.timeoutAt = init.timeoutAt;
  }

  /** Whether it was abandoned (its outcome will be ignored). */
  get abandoned(): boolean {
    return this.#abandoned;
  }

  /** Calls `send` with this flight's signal and routes the outcome to `handlers` unless abandoned first. */
  start(send: (signal: AbortSignal) => Promise<HeartbeatResponse>, handlers: FlightHandlers): void {
    let outcome: Promise<HeartbeatResponse>;
    try {
      outcome = Promise.resolve(send(this.controller.signal));
    } catch (error) {
      outcome = Promise.reject(error);
    }
    outcome
      .then(
        (response) => this.#abandoned || handlers.answer(response),
        (error: unknown) => this.#abandoned || handlers.error(error),
      )
      .catch((error: unknown) => handlers.bug(error));
  }

  /** Aborts the request with `reason` and ignores whatever it settles to. */
  abandon(reason: unknown): void {
    this.#abandoned = true;
    this.controller.abort(reason);
  }
}

/** What becomes of one heartbeat flight (never called once it is abandoned). */
export interface FlightOutcome {
  /** A usable answer: a list of acks. */
  answer(flight: HeartbeatFlight, response: HeartbeatResponse): void;
  /** The call failed, or its answer carries no list of acks (`UnexpectedResponseError`). */
  error(flight: HeartbeatFlight, error: unknown): void;
  /** A handler threw: the scheduler's bookkeeping failed. */
  bug(error: unknown): void;
}

/**
 * Sends one scheduler's batch heartbeats: `{ ttl, holderSession, claimIds }` naming exactly the
 * registered leases (split into requests of at most `maxIds`), one numbered flight at a time.
 */
export class HeartbeatSender {
  readonly #send: SendHeartbeat;
  readonly #body: { ttl: number; holderSession: string };
  readonly #maxIds: number;
  #sequence = 0;

  constructor(send: SendHeartbeat, ttlSeconds: number, holderSession: string, maxIds: number) {
    this.#send = send;
    this.#body = { ttl: ttlSeconds, holderSession };
    this.#maxIds = maxIds;
  }

  /** Starts a flight naming `claimIds` (registrations up to `generation`), given up at `timeoutAt`. */
  launch(claimIds: string[], generation: number, sentAt: number, timeoutAt: number, outcome: FlightOutcome): HeartbeatFlight {
    const flight = new HeartbeatFlight({ sequence: ++this.#sequence, generation, sentAt, timeoutAt });
    flight.start((signal) => sendNamedHeartbeat((named) => this.#send(named, signal), this.#body, claimIds, this.#maxIds), {
      answer: (response) => {
        if (typeof response === 'object' && response !== null && Array.isArray(response.results)) return outcome.answer(flight, response);
        outcome.error(flight, new UnexpectedResponseError({ status: 200, code: 'unexpected_response_shape', message: 'The heartbeat answer carries no list of acks.' }));
      },
      error: (error) => outcome.error(flight, error),
      bug: (error) => outcome.bug(error),
    });
    return flight;
  }
}

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
