import type { Transport } from '../core/transport/transport.js';
import type { LeaseholdOptions } from './leasehold-options.js';

/**
 * What differs between the runtimes the client runs in: the transport used when the options name
 * none. The Node entry sends through undici; the browser entry through `fetch` only.
 */
export interface Platform {
  /** The transport of a client with these options (`fetch` given: a fetch transport everywhere). */
  transport(options: Pick<LeaseholdOptions, 'fetch' | 'dispatcher'>): Transport;
}
