import type { HeartbeatResponse } from './renewal-scheduler-options.js';

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
