import {
  MAX_LOST_SHOWN,
  pageAfter,
  type LostClaim,
  type QueueStats,
  type QueueStatsList,
  type SessionActivity,
  type SessionList,
  type SpaceActivity,
  type SpaceList,
  type SpaceSummary,
  type Waiter,
} from './activity-views.js';
import { canSeeSpace, type Credential } from './credentials.js';
import { EngineError } from './errors.js';
import type { LeaseEngine } from './lease-engine.js';
import { eventQuery, type LeaseEvent, type LeaseEventList } from './lease-events.js';
import type { LostReason } from './lease-record.js';
import { leasedPageQuery, queueActivityPage, type LeasedInOrder, type QueueActivity } from './queue-activity.js';
import { samplesOf } from './queue-history.js';
import type { SessionHeartbeats } from './session-heartbeats.js';
import type { SpaceClaims } from './space-claims.js';
import { compareKeys, decodeCursor, encodeCursor } from './space-keys.js';
import type { QueueParams } from './spool-params.js';
import { promoteDelayed, type MessageRecord } from './spool-records.js';
import type { Spools } from './spools.js';
import { requireInt, requireUuid } from './validation.js';

/** A page request of an activity list. */
export interface PageParams {
  credential: Credential;
  limit?: number | undefined;
  cursor?: string | undefined;
}

/** The text cursor of a page request and its size (1–100, default 50). */
export function pageQuery(params: { limit?: number | undefined; cursor?: string | undefined }): { after: string | undefined; limit: number } {
  const limit = requireInt(params.limit, 1, 100, 'limit', 50);
  return { limit, after: params.cursor === undefined ? undefined : decodeCursor(params.cursor) };
}

/** Whether an event ended a space claim (held or waiting). */
export function isLoss(event: LeaseEvent): event is LeaseEvent & { reason: LostReason } {
  return (event.type === 'expired' || event.type === 'lost') && event.reason !== null;
}

/** A lost space claim's row from its event. */
export function lostClaimOf(event: LeaseEvent & { reason: LostReason }): LostClaim {
  return {
    object: 'lost_claim',
    claimId: event.claimId,
    key: event.key ?? '',
    scopeId: event.scopeId ?? '',
    holder: event.holder ?? '',
    holderSession: event.holderSession ?? '',
    fence: event.fence,
    reason: event.reason,
    lostAt: event.at,
  };
}

/** The queue statistics' cursor: spool and queue names (identifiers never hold a newline). */
export function queueSortKey(spool: string, queue: string): string {
  return `${spool}\n${queue}`;
}

/**
 * The read-only activity views of the memory store — active spaces, a space's claims, waiters
 * and recent losses, queue statistics, lease events and heartbeat rates per session — over the
 * engine's own state (every view first processes what fell due, as every operation does).
 */
export class Activity {
  constructor(
    private readonly leases: LeaseEngine,
    private readonly claims: SpaceClaims,
    private readonly spools: Spools,
    private readonly heartbeats: SessionHeartbeats,
  ) {}

  /** The account's spaces with live claims or lease events in the last 10 minutes. */
  listSpaces(params: PageParams): SpaceList {
    const now = this.leases.sync();
    const { after, limit } = pageQuery(params);
    const { credential } = params;
    const byId = new Map<string, SpaceSummary>();
    const summary = (spaceId: string): SpaceSummary => {
      let row = byId.get(spaceId);
      if (row === undefined) {
        row = { object: 'space', spaceId, held: 0, waiting: 0, lost: 0 };
        byId.set(spaceId, row);
      }
      return row;
    };
    for (const space of this.claims.spacesOf(credential.accountId)) {
      if (!canSeeSpace(credential, space.spaceId)) continue;
      let waiting = 0;
      for (const state of space.keys.values()) waiting += state.queue.length;
      if (space.held.size === 0 && waiting === 0) continue;
      const row = summary(space.spaceId);
      row.held = space.held.size;
      row.waiting = waiting;
    }
    for (const event of this.leases.events.eventsOf(credential.accountId, now)) {
      if (event.kind !== 'space' || event.spaceId === null || !canSeeSpace(credential, event.spaceId)) continue;
      const row = summary(event.spaceId);
      if (isLoss(event)) row.lost++;
    }
    const rows = [...byId.values()].sort((a, b) => compareKeys(a.spaceId, b.spaceId));
    return { object: 'list', ...pageAfter(rows, (row) => row.spaceId, after, limit, compareKeys, encodeCursor) };
  }

  /** One page of a space's held claims, their waiters in order, and the claims lost in the last 10 minutes. */
  spaceActivity(params: PageParams & { spaceId: string; prefix?: string | undefined }): SpaceActivity {
    const spaceId = requireUuid(params.spaceId, 'spaceId');
    if (!canSeeSpace(params.credential, spaceId)) throw new EngineError('space_not_found', 'No such space.', 'spaceId');
    const page = this.claims.list({ ...params, spaceId });
    const now = this.leases.sync();
    const space = this.claims.spaceOf(params.credential.accountId, spaceId, false);
    const waiters: Waiter[] = [];
    for (const claim of page.data) {
      const state = space?.keys.get(claim.key);
      state?.queue.forEach((lease, index) => {
        waiters.push({
          object: 'waiter',
          claimId: lease.claimId,
          key: claim.key,
          scopeId: lease.scopeId as string,
          holder: lease.holder as string,
          holderSession: lease.holderSession as string,
          position: index + 1,
          expiresAt: lease.expiresAt as number,
        });
      });
    }
    const lost: LostClaim[] = [];
    for (const event of this.leases.events.eventsOf(params.credential.accountId, now)) {
      if (event.kind === 'space' && event.spaceId === spaceId && isLoss(event)) lost.push(lostClaimOf(event));
    }
    lost.reverse();
    return { object: 'space_activity', spaceId, claims: page.data, waiters, lost: lost.slice(0, MAX_LOST_SHOWN), nextCursor: page.nextCursor };
  }

  /** Every queue of the account's spools with its counts and 10-second samples. */
  queueStats(params: PageParams): QueueStatsList {
    const now = this.leases.sync();
    const { after, limit } = pageQuery(params);
    const rows: QueueStats[] = [];
    for (const spool of this.spools.spoolsOf(params.credential.accountId)) {
      for (const queue of spool.queues.values()) {
        promoteDelayed(queue, now);
        const stored = queue.ready.size + queue.delayed.size + queue.leased;
        const { samples, discarded } = samplesOf(queue.history.counts(now), stored, now);
        rows.push({
          object: 'queue_stats',
          spool: spool.name,
          queue: queue.name,
          leaseTimeoutSeconds: queue.leaseTimeoutSeconds,
          depth: queue.ready.size,
          leased: queue.leased,
          delayed: queue.delayed.size,
          deadLettered: discarded,
          samples,
        });
      }
    }
    const key = (row: QueueStats) => queueSortKey(row.spool, row.queue);
    rows.sort((a, b) => compareKeys(key(a), key(b)));
    return { object: 'list', ...pageAfter(rows, key, after, limit, compareKeys, encodeCursor) };
  }

  /** One page of a queue's leased messages, oldest sent first, with the session holding each. */
  queueActivity(params: QueueParams & { limit?: number | undefined; cursor?: string | undefined }): QueueActivity {
    this.leases.sync();
    const { afterOrder, limit } = leasedPageQuery(params);
    const queue = this.spools.queueOf(params);
    const rows: LeasedInOrder[] = [];
    for (const lease of this.spools.leasesIn(queue)) {
      const message = lease.owner as MessageRecord;
      rows.push({
        sendOrder: message.seq,
        view: {
          object: 'leased_message',
          messageId: message.id,
          claimId: lease.claimId,
          holderSession: lease.holderSession,
          fence: lease.fence as number,
          deliveryCount: message.deliveryCount,
          acquiredAt: lease.acquiredAt as number,
          expiresAt: lease.expiresAt,
        },
      });
    }
    return queueActivityPage(queue.spool.name, queue.name, rows, afterOrder, limit);
  }

  /** The caller's lease events after `cursor` (see `LeaseEventLog.list`). */
  events(params: PageParams): LeaseEventList {
    const { after, limit } = eventQuery(params);
    const now = this.leases.sync();
    return this.leases.events.list(params.credential, after, limit, now);
  }

  /** The account's sessions with live leases or heartbeats in the last 10 minutes. */
  sessions(params: PageParams): SessionList {
    const now = this.leases.sync();
    const { after, limit } = pageQuery(params);
    const accountId = params.credential.accountId;
    const rows = new Map<string, SessionActivity>();
    for (const [holderSession, beat] of this.heartbeats.sessionsOf(accountId, now)) {
      rows.set(holderSession, { object: 'session', holderSession, heartbeats: beat.heartbeats, lastHeartbeatAt: beat.lastHeartbeatAt, leases: 0 });
    }
    for (const lease of this.leases.all()) {
      if (lease.accountId !== accountId || !lease.live || lease.holderSession === null) continue;
      let row = rows.get(lease.holderSession);
      if (row === undefined) {
        row = { object: 'session', holderSession: lease.holderSession, heartbeats: 0, lastHeartbeatAt: null, leases: 0 };
        rows.set(lease.holderSession, row);
      }
      row.leases++;
    }
    const sorted = [...rows.values()].sort((a, b) => compareKeys(a.holderSession, b.holderSession));
    return { object: 'list', ...pageAfter(sorted, (row) => row.holderSession, after, limit, compareKeys, encodeCursor) };
  }
}
