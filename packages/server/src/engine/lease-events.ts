import { canSeeSpace, type Credential } from './credentials.js';
import { EngineError } from './errors.js';
import { TOMBSTONE_MS, type LeaseKind, type LeaseRecord, type LostReason } from './lease-record.js';
import type { MessageRecord } from './spool-records.js';
import { requireInt } from './validation.js';

/** What happened to a lease. */
export type LeaseEventType = 'granted' | 'released' | 'expired' | 'lost';

/** One change of a lease (wire `LeaseEvent`). */
export interface LeaseEvent {
  object: 'lease_event';
  id: string;
  type: LeaseEventType;
  kind: LeaseKind;
  at: number;
  claimId: string;
  holder: string | null;
  holderSession: string | null;
  fence: number | null;
  spaceId: string | null;
  key: string | null;
  scopeId: string | null;
  taskId: number | null;
  spool: string | null;
  queue: string | null;
  reason: LostReason | null;
}

/** A page of events after a cursor (wire `LeaseEventList`). */
export interface LeaseEventList {
  object: 'list';
  data: LeaseEvent[];
  nextCursor: string;
  hasMore: boolean;
}

/** At most this many events are kept per account (the oldest go first), besides the 10 minutes. */
export const MAX_EVENTS_PER_ACCOUNT = 10_000;

/** The event id for a sequence number (`evt_` + decimal): opaque to callers, ordered here. */
export function eventId(seq: number): string {
  return `evt_${seq}`;
}

/** The sequence number an event cursor stands for, else `invalid_request` (`param: "cursor"`). */
export function decodeEventCursor(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const match = /^evt_(\d{1,15})$/.exec(cursor);
  if (match === null) throw new EngineError('invalid_request', 'cursor must be an event id (evt_…).', 'cursor');
  return Number(match[1]);
}

/** The type of an ended lease's event: `expired` when its time ran out, else `lost`. */
export function endedType(reason: LostReason): LeaseEventType {
  return reason === 'expired' || reason === 'lapsed' ? 'expired' : 'lost';
}

/** Whether the caller may read an event (the kind's read permission; space claims of spaces it sees). */
export function mayRead(credential: Credential, event: Pick<LeaseEvent, 'kind' | 'spaceId'>): boolean {
  if (event.kind === 'space') return event.spaceId !== null && canSeeSpace(credential, event.spaceId);
  return credential.permissions.has(event.kind === 'task' ? 'tasks:read' : 'spools:read');
}

/** The page size of an event read (1–100, default 50) and where it starts. */
export function eventQuery(params: { cursor?: string | undefined; limit?: number | undefined }): { after: number; limit: number } {
  return { after: decodeEventCursor(params.cursor), limit: requireInt(params.limit, 1, 100, 'limit', 50) };
}

interface Stored {
  readonly seq: number;
  readonly recordedAt: number;
  readonly event: LeaseEvent;
}

/** One account's events: `items[head…]` are kept (dropping from the front is O(1), compacted now and then). */
interface AccountLog {
  items: Stored[];
  head: number;
}

/**
 * The lease event log of the memory store: every grant, release, expiry and loss the lease engine
 * makes, per account, kept 10 minutes (and at most `MAX_EVENTS_PER_ACCOUNT`), in the order they
 * were recorded. An expiry is recorded when the engine processes it, with `at` its instant.
 */
export class LeaseEventLog {
  readonly #byAccount = new Map<string, AccountLog>();
  #seq = 0;

  /** Record one change of `lease` at `at` (`now`: when it is recorded, for retention). */
  record(lease: LeaseRecord, type: LeaseEventType, at: number, now: number): void {
    const seq = ++this.#seq;
    let log = this.#byAccount.get(lease.accountId);
    if (log === undefined) {
      log = { items: [], head: 0 };
      this.#byAccount.set(lease.accountId, log);
    }
    log.items.push({ seq, recordedAt: now, event: viewOf(lease, seq, type, at) });
    prune(log, now);
  }

  /** The caller's events after `after`, at most `limit`, within the last 10 minutes of `now`. */
  list(credential: Credential, after: number, limit: number, now: number): LeaseEventList {
    const log = this.#byAccount.get(credential.accountId);
    const data: LeaseEvent[] = [];
    let last = after;
    let hasMore = false;
    if (log !== undefined) prune(log, now);
    const items = log?.items ?? [];
    // Events are in `seq` order: start after the cursor by binary search.
    let lo = log?.head ?? 0;
    let hi = items.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((items[mid] as Stored).seq <= after) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < items.length; i++) {
      const stored = items[i] as Stored;
      if (stored.seq <= after || stored.event.at <= now - TOMBSTONE_MS || !mayRead(credential, stored.event)) continue;
      if (data.length === limit) {
        hasMore = true;
        break;
      }
      data.push(stored.event);
      last = stored.seq;
    }
    return { object: 'list', data, nextCursor: eventId(last), hasMore };
  }

  /** Every kept event of an account (recorded order), for the activity views. */
  *eventsOf(accountId: string, now: number): IterableIterator<LeaseEvent> {
    const log = this.#byAccount.get(accountId);
    if (log === undefined) return;
    prune(log, now);
    for (let i = log.head; i < log.items.length; i++) {
      const stored = log.items[i] as Stored;
      if (stored.event.at > now - TOMBSTONE_MS) yield stored.event;
    }
  }
}

/** Drop what is past 10 minutes (by when it was recorded) or beyond the cap, from the front. */
function prune(log: AccountLog, now: number): void {
  let head = Math.max(log.head, log.items.length - MAX_EVENTS_PER_ACCOUNT);
  while (head < log.items.length && (log.items[head] as Stored).recordedAt <= now - TOMBSTONE_MS) head++;
  log.head = head;
  if (head > 1024 && head * 2 > log.items.length) {
    log.items = log.items.slice(head);
    log.head = 0;
  }
}

function viewOf(lease: LeaseRecord, seq: number, type: LeaseEventType, at: number): LeaseEvent {
  const message = lease.kind === 'spool' ? (lease.owner as MessageRecord) : undefined;
  return {
    object: 'lease_event',
    id: eventId(seq),
    type,
    kind: lease.kind,
    at,
    claimId: lease.claimId,
    holder: lease.holder,
    holderSession: lease.holderSession,
    fence: lease.fence,
    spaceId: lease.spaceId,
    key: lease.key,
    scopeId: lease.scopeId,
    taskId: lease.kind === 'task' ? (lease.owner as { id: number }).id : null,
    spool: message?.queue.spool.name ?? null,
    queue: message?.queue.name ?? null,
    reason: type === 'expired' || type === 'lost' ? lease.lostReason : null,
  };
}
