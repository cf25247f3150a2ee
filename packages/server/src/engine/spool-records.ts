import { toUtc } from './clock.js';
import type { LeaseRecord } from './lease-record.js';
import { MinHeap, type HeapItem } from './min-heap.js';
import { QueueHistory } from './queue-history.js';
import { createSortedMap, type SortedMap } from './sorted-map.js';

/** At most this many queues per spool (`plan_limit_exceeded` beyond). */
export const MAX_QUEUES_PER_SPOOL = 64;

/** A spool of one account: named queues and the handles of its messages. */
export interface SpoolRecord {
  readonly accountId: string;
  readonly name: string;
  readonly createdAt: number;
  readonly queues: Map<string, QueueRecord>;
  /** Every message of the spool by its stable handle (for discard). */
  readonly handles: Map<string, MessageRecord>;
}

/** A queue: ready messages in send order, delayed ones by visibility time, and a lease timeout. */
export interface QueueRecord {
  readonly spool: SpoolRecord;
  readonly name: string;
  /** Lease timeout in seconds, or `null` for leases that never expire. */
  leaseTimeoutSeconds: number | null;
  /** Visible messages by send order (`seq`): the smallest is the oldest. */
  readonly ready: SortedMap<number, MessageRecord>;
  /** Messages not yet visible, keyed by when they become visible. */
  readonly delayed: MinHeap<MessageRecord>;
  /** How many messages are leased right now. */
  leased: number;
  /** Sends, acknowledgements and discards of the last 10 minutes, per 10 seconds. */
  readonly history: QueueHistory;
}

/** One message. */
export interface MessageRecord extends HeapItem {
  readonly id: string;
  readonly handle: string;
  readonly queue: QueueRecord;
  readonly body: unknown;
  readonly sentAt: number;
  deliveryCount: number;
  /** The live lease, or `null` when the message waits in its queue. */
  lease: LeaseRecord | null;
}

/** A queue (wire `Queue`). */
export interface Queue {
  object: 'queue';
  spool: string;
  name: string;
  leaseTimeoutSeconds: number | null;
  depth: number;
  leased: number;
}

/** A spool (wire `Spool`). */
export interface Spool {
  object: 'spool';
  name: string;
  queues: Queue[];
  createdAt: string;
}

/** A message (wire `Message`); `claimId` and `fence` only on a received message. */
export interface Message {
  object: 'message';
  id: string;
  handle: string;
  spool: string;
  queue: string;
  body: unknown;
  sentAt: string;
  deliveryCount: number;
  claimId?: string;
  fence?: number;
}

/** A received message and its lease: the HTTP layer puts `lease` in `Spooler-Lease`. */
export interface ReceivedMessage {
  message: Message;
  /** The secret lease string (`Spooler-Lease` header). */
  lease: string;
  /** Absolute expiry (epoch ms) for `Spooler-Lease-Expires-At`, or `null`: never expires. */
  expiresAt: number | null;
  /** Granted duration for `Spooler-Lease-Timeout`, or `null`: never expires. */
  leaseSeconds: number | null;
}

/** The state of a spool lease after a renew (the HTTP layer answers 204 with headers). */
export interface SpoolLeaseState {
  claimId: string;
  expiresAt: number | null;
  leaseSeconds: number | null;
}

/** A new, empty queue. */
export function createQueueRecord(spool: SpoolRecord, name: string, leaseTimeoutSeconds: number | null): QueueRecord {
  return {
    spool,
    name,
    leaseTimeoutSeconds,
    ready: createSortedMap<number, MessageRecord>(),
    delayed: new MinHeap<MessageRecord>(),
    leased: 0,
    history: new QueueHistory(),
  };
}

/** Move every delayed message visible by `now` into the ready set. */
export function promoteDelayed(queue: QueueRecord, now: number): void {
  for (let next = queue.delayed.peek(); next !== undefined && next.dueAt <= now; next = queue.delayed.peek()) {
    queue.delayed.pop();
    queue.ready.set(next.seq, next);
  }
}

/** Build the wire view of a queue (call `promoteDelayed` first). */
export function queueView(queue: QueueRecord): Queue {
  return {
    object: 'queue',
    spool: queue.spool.name,
    name: queue.name,
    leaseTimeoutSeconds: queue.leaseTimeoutSeconds,
    depth: queue.ready.size,
    leased: queue.leased,
  };
}

/** Build the wire view of a spool, queues in name order (delayed messages promoted by `now`). */
export function spoolView(spool: SpoolRecord, now: number): Spool {
  const queues = [...spool.queues.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return {
    object: 'spool',
    name: spool.name,
    queues: queues.map((queue) => {
      promoteDelayed(queue, now);
      return queueView(queue);
    }),
    createdAt: toUtc(spool.createdAt),
  };
}

/** Build the wire view of a message (with its lease's claim id and fence when leased). */
export function messageView(message: MessageRecord): Message {
  const view: Message = {
    object: 'message',
    id: message.id,
    handle: message.handle,
    spool: message.queue.spool.name,
    queue: message.queue.name,
    body: message.body,
    sentAt: toUtc(message.sentAt),
    deliveryCount: message.deliveryCount,
  };
  if (message.lease !== null) {
    view.claimId = message.lease.claimId;
    view.fence = message.lease.fence as number;
  }
  return view;
}
