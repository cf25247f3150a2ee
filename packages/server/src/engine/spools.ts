import type { Caller } from './credentials.js';
import { EngineError } from './errors.js';
import type { HeartbeatResult } from './heartbeat-result.js';
import type { LeaseEngine, LeaseKindHandler } from './lease-engine.js';
import type { LeaseRecord } from './lease-record.js';
import { randomBase62 } from './random.js';
import {
  MAX_QUEUES_PER_SPOOL,
  createQueueRecord,
  messageView,
  promoteDelayed,
  queueView,
  spoolView,
  type Message,
  type MessageRecord,
  type Queue,
  type QueueRecord,
  type ReceivedMessage,
  type Spool,
  type SpoolLeaseState,
  type SpoolRecord,
} from './spool-records.js';
import { requireStorableJson } from './json-value.js';
import { requireIdentName, requireInt } from './validation.js';
import type { LeaseParams, QueueParams } from './spool-params.js';

const LEASE_FORMAT = /^[A-Za-z0-9_-]{16,256}$/;

/**
 * Spools: per-account named queues of JSON messages, received under leases that renew by
 * *reset* to the queue's current timeout. A lease that no longer settles anything (expired,
 * settled, discarded, or granted before a primary change) is `stale_token`. Implements the
 * `spool` lease kind.
 */
export class Spools implements LeaseKindHandler {
  readonly #leases: LeaseEngine;
  readonly #spools = new Map<string, SpoolRecord>();
  readonly #live = new Set<LeaseRecord>();
  #seq = 0;
  #messages = 0;

  /** Spools on top of the shared lease engine. */
  constructor(leases: LeaseEngine) {
    this.#leases = leases;
    leases.register('spool', this);
  }

  /** Create a spool (`spool_exists` if the account has one of that name). */
  createSpool(params: { credential: Caller; name: string }): Spool {
    const now = this.#leases.sync();
    const name = requireIdentName(params.name, 'name');
    const id = spoolKey(params.credential.accountId, name);
    if (this.#spools.has(id)) throw new EngineError('spool_exists', 'A spool of that name exists.', 'name');
    const spool: SpoolRecord = { accountId: params.credential.accountId, name, createdAt: now, queues: new Map(), handles: new Map() };
    this.#spools.set(id, spool);
    return spoolView(spool, now);
  }

  /** Read a spool and its queues. */
  getSpool(params: { credential: Caller; spool: string }): Spool {
    const now = this.#leases.sync();
    return spoolView(this.#spool(params.credential, params.spool), now);
  }

  /** Create a queue or change its lease timeout (existing leases keep their deadline until renewed). */
  putQueue(params: QueueParams & { leaseTimeoutSeconds: number | null }): { queue: Queue; created: boolean } {
    const now = this.#leases.sync();
    const name = requireIdentName(params.queue, 'queue');
    const timeout =
      params.leaseTimeoutSeconds === null ? null : requireInt(params.leaseTimeoutSeconds, 1, 43200, 'leaseTimeoutSeconds');
    const spool = this.#spool(params.credential, params.spool);
    let queue = spool.queues.get(name);
    const created = queue === undefined;
    if (queue === undefined) {
      if (spool.queues.size >= MAX_QUEUES_PER_SPOOL) {
        throw new EngineError('plan_limit_exceeded', `A spool holds at most ${MAX_QUEUES_PER_SPOOL} queues.`, 'queue');
      }
      queue = createQueueRecord(spool, name, timeout);
      spool.queues.set(name, queue);
    } else {
      queue.leaseTimeoutSeconds = timeout;
    }
    promoteDelayed(queue, now);
    return { queue: queueView(queue), created };
  }

  /** Read one queue. */
  getQueue(params: QueueParams): Queue {
    const now = this.#leases.sync();
    const queue = this.queueOf(params);
    promoteDelayed(queue, now);
    return queueView(queue);
  }

  /** Send a message, visible after `delaySeconds` (0–900, default 0). */
  send(params: QueueParams & { body: unknown; delaySeconds?: number | undefined }): Message {
    const now = this.#leases.sync();
    const delay = requireInt(params.delaySeconds, 0, 900, 'delaySeconds', 0);
    const body = requireStorableJson(params.body ?? null, 'body');
    const queue = this.queueOf(params);
    const random = this.#leases.random;
    const message: MessageRecord = {
      id: `msg_${randomBase62(random, 16)}`,
      handle: `hdl_${randomBase62(random, 16)}`,
      queue,
      body,
      sentAt: now,
      seq: ++this.#seq,
      deliveryCount: 0,
      lease: null,
      dueAt: now + delay * 1000,
      heapIndex: -1,
    };
    queue.spool.handles.set(message.handle, message);
    this.#messages++;
    queue.history.sent(now);
    this.#enqueue(message, now);
    return messageView(message);
  }

  /** Receive the oldest visible message under a new lease, or `null` when none is visible (204). */
  receive(params: QueueParams & { holderSession?: string | null | undefined }): ReceivedMessage | null {
    const now = this.#leases.sync();
    const queue = this.queueOf(params);
    promoteDelayed(queue, now);
    const seq = queue.ready.minKey();
    if (seq === undefined) return null;
    const message = queue.ready.get(seq) as MessageRecord;
    queue.ready.delete(seq);
    const timeout = queue.leaseTimeoutSeconds;
    const lease = this.#leases.create({
      kind: 'spool',
      token: 'sl_',
      credentialId: params.credential.credentialId,
      accountId: queue.spool.accountId,
      holderSession: params.holderSession ?? null,
      owner: message,
      leaseSeconds: timeout,
    });
    this.#leases.grant(lease, now, timeout === null ? null : now + timeout * 1000);
    message.lease = lease;
    message.deliveryCount++;
    queue.leased++;
    this.#live.add(lease);
    return { message: messageView(message), lease: lease.token, expiresAt: lease.expiresAt, leaseSeconds: timeout };
  }

  /** Reset a lease to now + its queue's current timeout (or never, when the queue has none). */
  renew(params: LeaseParams): SpoolLeaseState {
    const now = this.#leases.sync();
    const lease = this.#liveLease(params);
    const timeout = (lease.owner as MessageRecord).queue.leaseTimeoutSeconds;
    lease.leaseSeconds = timeout;
    this.#leases.setExpiry(lease, timeout === null ? null : now + timeout * 1000);
    return { claimId: lease.claimId, expiresAt: lease.expiresAt, leaseSeconds: timeout };
  }

  /** Settle a lease by deleting its message. */
  ack(params: LeaseParams): void {
    const now = this.#leases.sync();
    const lease = this.#liveLease(params);
    const message = lease.owner as MessageRecord;
    this.#settle(lease);
    this.#delete(message, now, false);
  }

  /** Settle a lease by returning its message to the queue (invisible for `delaySeconds`). */
  nack(params: LeaseParams & { delaySeconds?: number | undefined }): void {
    const now = this.#leases.sync();
    const delay = requireInt(params.delaySeconds, 0, 900, 'delaySeconds', 0);
    const lease = this.#liveLease(params);
    const message = lease.owner as MessageRecord;
    this.#settle(lease);
    message.dueAt = now + delay * 1000;
    this.#enqueue(message, now);
  }

  /** Delete a message by handle whatever its state; a leased one's lease becomes stale (lost). */
  discard(params: { credential: Caller; spool: string; handle: string }): Message {
    const now = this.#leases.sync();
    const spool = this.#spool(params.credential, params.spool);
    const view = this.discardIn(spool, params.handle, now);
    if (view === undefined) throw new EngineError('message_not_found', 'No such message in this spool.', 'handle');
    return view;
  }

  /** Discard by handle inside a known spool at `now`; `undefined` when there is no such message. */
  discardIn(spool: SpoolRecord, handle: string, now: number): Message | undefined {
    const message = spool.handles.get(handle);
    if (message === undefined) return undefined;
    const view = messageView(message);
    const lease = message.lease;
    if (lease !== null) {
      this.#settle(lease, now);
    } else {
      message.queue.ready.delete(message.seq);
      message.queue.delayed.remove(message);
    }
    this.#delete(message, now, true);
    return view;
  }

  /** Make every outstanding spool lease stale (a primary change); answers how many. */
  primaryChange(): number {
    const now = this.#leases.sync();
    const live = [...this.#live];
    for (const lease of live) this.#leases.lose(lease, now, 'primary_change');
    return live.length;
  }

  /** Messages stored (ready, delayed or leased). */
  get messageCount(): number {
    return this.#messages;
  }

  /** The account's spools (any order), for the activity views. */
  *spoolsOf(accountId: string): IterableIterator<SpoolRecord> {
    for (const spool of this.#spools.values()) if (spool.accountId === accountId) yield spool;
  }

  /** The live leases of `queue`'s messages (any order), for the activity views. */
  *leasesIn(queue: QueueRecord): IterableIterator<LeaseRecord> {
    for (const lease of this.#live) if ((lease.owner as MessageRecord).queue === queue) yield lease;
  }

  /** Every account's spool of this name (for controls that name no account). */
  spoolsNamed(name: string, accountId?: string): SpoolRecord[] {
    const out: SpoolRecord[] = [];
    for (const spool of this.#spools.values()) {
      if (spool.name === name && (accountId === undefined || spool.accountId === accountId)) out.push(spool);
    }
    return out;
  }

  /** Lease-kind hook: the lease expired or was taken away; its message goes back to its queue. */
  detach(lease: LeaseRecord, at: number): void {
    const message = lease.owner as MessageRecord;
    this.#live.delete(lease);
    if (message.lease !== lease) return;
    message.lease = null;
    message.queue.leased--;
    message.dueAt = at;
    message.queue.ready.set(message.seq, message);
  }

  /** Lease-kind hook: a heartbeat resets a spool lease like `renew`. */
  heartbeat(lease: LeaseRecord, _ttlSeconds: number, now: number): HeartbeatResult {
    const timeout = (lease.owner as MessageRecord).queue.leaseTimeoutSeconds;
    lease.leaseSeconds = timeout;
    this.#leases.setExpiry(lease, timeout === null ? null : now + timeout * 1000);
    const result: HeartbeatResult = { claimId: lease.claimId, status: 'held' };
    if (lease.expiresAt !== null) result.expiresAt = lease.expiresAt;
    return result;
  }

  /** End a live lease: forgotten when settled by its holder, a lost tombstone when discarded. */
  #settle(lease: LeaseRecord, discardedAt?: number): void {
    const message = lease.owner as MessageRecord;
    this.#live.delete(lease);
    message.lease = null;
    message.queue.leased--;
    if (discardedAt === undefined) this.#leases.forget(lease);
    else this.#leases.markLost(lease, discardedAt, 'discarded');
  }

  #delete(message: MessageRecord, now: number, discarded: boolean): void {
    message.queue.spool.handles.delete(message.handle);
    message.queue.history.removed(now, discarded);
    this.#messages--;
  }

  #enqueue(message: MessageRecord, now: number): void {
    if (message.dueAt > now) message.queue.delayed.push(message);
    else message.queue.ready.set(message.seq, message);
  }

  #liveLease(params: LeaseParams): LeaseRecord {
    const spool = this.#spool(params.credential, params.spool);
    if (typeof params.lease !== 'string' || !LEASE_FORMAT.test(params.lease)) {
      throw new EngineError('invalid_token', 'Spooler-Lease must be 16–256 characters of A–Z a–z 0–9 _ -.', 'Spooler-Lease');
    }
    const lease = this.#leases.byToken('sl_', params.lease);
    if (lease === undefined || lease.kind !== 'spool' || lease.status !== 'held' || (lease.owner as MessageRecord).queue.spool !== spool) {
      throw new EngineError('stale_token', 'The lease no longer settles anything.', 'Spooler-Lease');
    }
    return lease;
  }

  #spool(caller: Caller, rawName: string): SpoolRecord {
    const name = requireIdentName(rawName, 'spool');
    const spool = this.#spools.get(spoolKey(caller.accountId, name));
    if (spool === undefined) throw new EngineError('spool_not_found', 'No such spool.', 'spool');
    return spool;
  }

  /** A queue of the caller's account (`spool_not_found`, `queue_not_found`), for the activity views too. */
  queueOf(params: QueueParams): QueueRecord {
    const spool = this.#spool(params.credential, params.spool);
    const queue = spool.queues.get(requireIdentName(params.queue, 'queue'));
    if (queue === undefined) throw new EngineError('queue_not_found', 'No such queue.', 'queue');
    return queue;
  }
}

function spoolKey(accountId: string, name: string): string {
  return `${accountId}\n${name}`;
}
