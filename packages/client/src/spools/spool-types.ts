import type { Logger } from '../core/logger.js';
import type { Redactor } from '../core/redact.js';
import type { GrantFlights } from '../leases/grant-flights.js';
import type { LeaseEndings } from '../leases/lease-backend.js';
import type { LeaseBook } from '../leases/lease-tracker.js';
import type { Api } from '../resources/api.js';

/** What the spool classes need from the client: the API, lease tracking, grant flights, closing and the log. */
export interface SpoolContext {
  readonly api: Api;
  readonly leases: LeaseBook;
  readonly grants: GrantFlights;
  readonly endings: LeaseEndings;
  /** Aborted when the client starts closing. */
  readonly closeSignal: AbortSignal;
  readonly log: Logger;
  /** Masks secrets in lines written to stderr. */
  readonly redactor: Redactor;
  /** Whether the client was given a logger (consume reports failures there, else on stderr). */
  readonly hasLogger: boolean;
}
