import type { Caller } from './credentials.js';

/** Shortest space-claim lease, in seconds. */
export const SPACE_LEASE_MIN_SECONDS = 5;
/** Longest space-claim lease, in seconds. */
export const SPACE_LEASE_MAX_SECONDS = 600;

/** Acquire a key (`wait: true` joins the queue instead of failing when it is held). */
export interface AcquireParams {
  credential: Caller;
  spaceId: string;
  key: string;
  scopeId: string;
  holder: string;
  holderSession: string;
  leaseSeconds?: number | undefined;
  wait?: boolean | undefined;
}

/** Address one key of a space. */
export interface KeyParams {
  credential: Caller;
  spaceId: string;
  key: string;
}

/** List held claims in key order. */
export interface ListParams {
  credential: Caller;
  spaceId: string;
  prefix?: string | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}
