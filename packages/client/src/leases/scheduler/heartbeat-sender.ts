import { UnexpectedResponseError } from '../../core/errors/unexpected-response-error.js';
import { sendNamedHeartbeat } from './heartbeat-batches.js';
import { HeartbeatFlight } from './heartbeat-flight.js';
import type { HeartbeatResponse, SendHeartbeat } from './renewal-scheduler-options.js';

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
