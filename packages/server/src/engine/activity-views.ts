import type { LostReason } from './lease-record.js';
import type { QueueSample } from './queue-history.js';
import type { Claim } from './space-claim-views.js';

/** A space with activity (wire `SpaceSummary`). */
export interface SpaceSummary {
  object: 'space';
  spaceId: string;
  held: number;
  waiting: number;
  lost: number;
}

/** A page of active spaces (wire `SpaceList`). */
export interface SpaceList {
  object: 'list';
  data: SpaceSummary[];
  nextCursor: string | null;
}

/** A claim waiting for a held key (wire `Waiter`). */
export interface Waiter {
  object: 'waiter';
  claimId: string;
  key: string;
  scopeId: string;
  holder: string;
  holderSession: string;
  position: number;
  expiresAt: number;
}

/** A space claim lost in the last 10 minutes (wire `LostClaim`). */
export interface LostClaim {
  object: 'lost_claim';
  claimId: string;
  key: string;
  scopeId: string;
  holder: string;
  holderSession: string;
  fence: number | null;
  reason: LostReason;
  lostAt: number;
}

/** What happens in one space now (wire `SpaceActivity`). */
export interface SpaceActivity {
  object: 'space_activity';
  spaceId: string;
  claims: Claim[];
  waiters: Waiter[];
  lost: LostClaim[];
  nextCursor: string | null;
}

/** A queue's counts and history (wire `QueueStats`). */
export interface QueueStats {
  object: 'queue_stats';
  spool: string;
  queue: string;
  leaseTimeoutSeconds: number | null;
  depth: number;
  leased: number;
  delayed: number;
  deadLettered: number;
  samples: QueueSample[];
}

/** A page of queue statistics (wire `QueueStatsList`). */
export interface QueueStatsList {
  object: 'list';
  data: QueueStats[];
  nextCursor: string | null;
}

/** A holder session's heartbeat rate and live leases (wire `SessionActivity`). */
export interface SessionActivity {
  object: 'session';
  holderSession: string;
  heartbeats: number;
  lastHeartbeatAt: number | null;
  leases: number;
}

/** A page of sessions (wire `SessionList`). */
export interface SessionList {
  object: 'list';
  data: SessionActivity[];
  nextCursor: string | null;
}

/** At most this many lost claims are shown per space. */
export const MAX_LOST_SHOWN = 100;

/** The page of `items` (sorted by `keyOf`, code-point order) after `after`, and its cursor. */
export function pageAfter<T>(
  items: readonly T[],
  keyOf: (item: T) => string,
  after: string | undefined,
  limit: number,
  compare: (a: string, b: string) => number,
  encode: (key: string) => string,
): { data: T[]; nextCursor: string | null } {
  const rest = after === undefined ? items : items.filter((item) => compare(keyOf(item), after) > 0);
  const data = rest.slice(0, limit);
  const last = data[data.length - 1];
  return { data, nextCursor: rest.length > limit && last !== undefined ? encode(keyOf(last)) : null };
}
