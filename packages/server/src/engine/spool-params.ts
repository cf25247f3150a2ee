import type { Caller } from './credentials.js';

/** Address a queue of a spool. */
export interface QueueParams {
  credential: Caller;
  spool: string;
  queue: string;
}

/** Present a spool lease (the `Spooler-Lease` header). */
export interface LeaseParams {
  credential: Caller;
  spool: string;
  lease: string;
}
