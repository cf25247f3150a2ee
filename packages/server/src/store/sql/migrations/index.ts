import type { Migration } from 'kysely';
import { initial } from './0001-initial.js';
import { oneRoundTrip } from './0002-one-round-trip.js';
import { heartbeatIndexes } from './0003-heartbeat-indexes.js';
import { claimFunctions } from './0004-claim-functions.js';
import { spoolFunctions } from './0005-spool-functions.js';
import { faultRules } from './0007-fault-rules.js';
import { activity } from './0008-activity.js';
import { settleRechecks } from './0009-settle-rechecks.js';
import { eventFeed } from './0010-event-feed.js';
import { keySet } from './0011-key-set.js';

/**
 * Every migration of the store, by name; applied in name order. A released migration is never
 * edited: a change to the schema is a new file here.
 */
export const migrations: Record<string, Migration> = {
  '0001-initial': initial,
  '0002-one-round-trip': oneRoundTrip,
  '0003-heartbeat-indexes': heartbeatIndexes,
  '0004-claim-functions': claimFunctions,
  '0005-spool-functions': spoolFunctions,
  // There is no 0006 (a number a branch took and gave back before any release); names apply in order, gaps are fine.
  '0007-fault-rules': faultRules,
  '0008-activity': activity,
  '0009-settle-rechecks': settleRechecks,
  '0010-event-feed': eventFeed,
  '0011-key-set': keySet,
};
