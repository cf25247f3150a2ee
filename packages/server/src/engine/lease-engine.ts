import type { Clock } from './clock.js';
import { claimIdOfToken, mintToken, newClaimId, tokenMatches, type TokenPrefix } from './lease-tokens.js';
import {
  LeaseRecord,
  TOMBSTONE_MS,
  type LeaseInit,
  type LeaseKind,
  type LostReason,
  type ReleasedRow,
} from './lease-record.js';
import { MinHeap } from './min-heap.js';
import type { RandomSource } from './random.js';
import type { HeartbeatResult } from './heartbeat-result.js';
import { LeaseEventLog, endedType } from './lease-events.js';

/** What each kind of lease does when the lease engine takes it away or a heartbeat touches it. */
export interface LeaseKindHandler {
  /** The lease was just lost at `at` (expired or taken away): detach it from what it guards. */
  detach(lease: LeaseRecord, at: number): void;
  /** Renew a live lease for a heartbeat with `ttlSeconds` (`null`: the lease's own term), answering its ack. */
  heartbeat(lease: LeaseRecord, ttlSeconds: number | null, now: number): HeartbeatResult;
  /** The lease's tombstone is being forgotten. */
  purge?(lease: LeaseRecord): void;
}

/** Counts of what the lease engine holds, for tests and benchmarks. */
export interface LeaseStats {
  /** Leases currently held. */
  held: number;
  /** Space claims waiting in a key's queue. */
  queued: number;
  /** Lost or released leases still remembered. */
  tombstones: number;
  /** Items in the expiry heap. */
  heapSize: number;
  /** The largest fence granted in any account (each account has its own sequence). */
  fence: number;
}

/** How a new lease is created: its fields, plus the token style. */
export interface CreateLease extends LeaseInit {
  /** `lht_`/`sl_` for an engine-minted token, or a ready token (task claims use UUIDs). */
  token: TokenPrefix | { readonly value: string };
}

/**
 * The one lease engine behind space claims, task claims and spool leases: ids, tokens, one
 * fence sequence per account (so an account's fences say nothing about any other account's
 * grants), per-credential indexes, and expiry through an indexed min-heap with lazy
 * re-keying (an extended lease is re-examined only when its old due time comes), so a tick with
 * nothing due costs O(1) and expiring k leases costs O(k log n).
 */
export class LeaseEngine {
  readonly #clock: Clock;
  readonly #random: RandomSource;
  readonly #heap = new MinHeap<LeaseRecord>();
  readonly #byClaimId = new Map<string, LeaseRecord>();
  readonly #byCredential = new Map<string, Set<LeaseRecord>>();
  readonly #handlers = new Map<LeaseKind, LeaseKindHandler>();
  readonly #sweepers: Array<(now: number) => void> = [];
  /** The last fence granted in each account. */
  readonly #fences = new Map<string, number>();
  #seq = 0;
  /** Every grant, release, expiry and loss of the last 10 minutes, per account. */
  readonly events = new LeaseEventLog();

  /** Create an engine reading time from `clock` and randomness from `random`. */
  constructor(clock: Clock, random: RandomSource) {
    this.#clock = clock;
    this.#random = random;
  }

  /** The injected random source (services mint their own ids with it). */
  get random(): RandomSource {
    return this.#random;
  }

  /** Install the handler for one kind of lease. */
  register(kind: LeaseKind, handler: LeaseKindHandler): void {
    this.#handlers.set(kind, handler);
  }

  /**
   * Run `sweep(now)` at the end of every `processExpirations`, after the leases due by `now`
   * (services forget their own idle state there, from heaps of their own).
   */
  addSweeper(sweep: (now: number) => void): void {
    this.#sweepers.push(sweep);
  }

  /** The handler of `kind`. */
  handler(kind: LeaseKind): LeaseKindHandler {
    const handler = this.#handlers.get(kind);
    if (!handler) throw new Error(`No lease handler registered for ${kind}`);
    return handler;
  }

  /** Process every due expiry, then answer the current time: call first in every operation. */
  sync(): number {
    const now = this.#clock.now();
    this.processExpirations(now);
    return now;
  }

  /**
   * Expire every lease due by `now`, in due order and at its own expiry instant (so a waiter
   * granted by an expiry is granted at that instant), forget tombstones older than 10 min, then
   * run the sweepers. Answers how many leases expired.
   */
  processExpirations(now: number = this.#clock.now()): number {
    let expired = 0;
    for (;;) {
      const lease = this.#heap.peek();
      if (lease === undefined || lease.dueAt > now) {
        for (const sweep of this.#sweepers) sweep(now);
        return expired;
      }
      if (!lease.live) {
        this.purge(lease);
      } else if (lease.expiresAt === null) {
        this.#heap.remove(lease);
      } else if (lease.expiresAt > lease.dueAt) {
        this.#heap.schedule(lease, lease.expiresAt);
      } else {
        expired++;
        this.lose(lease, lease.expiresAt, lease.status === 'queued' ? 'lapsed' : 'expired');
      }
    }
  }

  /** Create a lease (status `queued`, no fence) and index it under its claim id and credential. */
  create(init: CreateLease): LeaseRecord {
    let claimId = newClaimId(this.#random);
    while (this.#byClaimId.has(claimId)) claimId = newClaimId(this.#random);
    const token = typeof init.token === 'string' ? mintToken(init.token, claimId, this.#random) : init.token.value;
    const lease = new LeaseRecord(init, claimId, token, ++this.#seq);
    this.#byClaimId.set(claimId, lease);
    let set = this.#byCredential.get(lease.credentialId);
    if (set === undefined) {
      set = new Set();
      this.#byCredential.set(lease.credentialId, set);
    }
    set.add(lease);
    return lease;
  }

  /**
   * Grant `lease` at `at`: status `held`, the next fence of its account's sequence (larger than
   * every fence granted before in that account, so larger than any earlier grant of the same
   * resource, which belongs to that account too).
   */
  grant(lease: LeaseRecord, at: number, expiresAt: number | null): void {
    lease.status = 'held';
    const fence = (this.#fences.get(lease.accountId) ?? 0) + 1;
    this.#fences.set(lease.accountId, fence);
    lease.fence = fence;
    lease.acquiredAt = at;
    this.setExpiry(lease, expiresAt);
    this.events.record(lease, 'granted', at, this.#clock.now());
  }

  /** Set when a live lease lapses (`null` = never); an extension costs no heap work. */
  setExpiry(lease: LeaseRecord, expiresAt: number | null): void {
    lease.expiresAt = expiresAt;
    if (expiresAt === null) return;
    if (!this.#heap.has(lease) || expiresAt < lease.dueAt) this.#heap.schedule(lease, expiresAt);
  }

  /** Take a live lease away at `at`: tombstone it as lost, then let its kind detach it. */
  lose(lease: LeaseRecord, at: number, reason: LostReason): void {
    if (!lease.live) return;
    this.markLost(lease, at, reason);
    this.handler(lease.kind).detach(lease, at);
  }

  /** Tombstone a live lease as lost without detaching it (the caller detaches it itself). */
  markLost(lease: LeaseRecord, at: number, reason: LostReason): void {
    lease.status = 'lost';
    lease.lostReason = reason;
    lease.endedAt = at;
    this.#heap.schedule(lease, at + TOMBSTONE_MS);
    this.events.record(lease, endedType(reason), at, this.#clock.now());
  }

  /** End a lease by its holder's choice: kept 10 minutes so a repeat sees the same `row`. */
  release(lease: LeaseRecord, at: number, row: ReleasedRow | null): void {
    lease.released = row;
    if (!lease.live) return; // a lost lease keeps its tombstone (and its pending `lost` report)
    lease.status = 'released';
    lease.endedAt = at;
    this.#heap.schedule(lease, at + TOMBSTONE_MS);
    this.#unindexCredential(lease);
    this.events.record(lease, 'released', at, this.#clock.now());
  }

  /** Forget a lease at once (a settled spool lease): any later use of its token is stale. */
  forget(lease: LeaseRecord): void {
    if (lease.live) {
      lease.status = 'released';
      const now = this.#clock.now();
      this.events.record(lease, 'released', now, now);
    }
    this.purge(lease);
  }

  /** Drop a lease from every index. */
  purge(lease: LeaseRecord): void {
    this.#heap.remove(lease);
    if (this.#byClaimId.get(lease.claimId) === lease) this.#byClaimId.delete(lease.claimId);
    this.#unindexCredential(lease);
    this.#handlers.get(lease.kind)?.purge?.(lease);
  }

  /** Note that a heartbeat reported the loss; the lease leaves its credential's index. */
  markReported(lease: LeaseRecord): void {
    this.#unindexCredential(lease);
  }

  /** The lease (live or tombstone) with this claim id. */
  byClaimId(claimId: string): LeaseRecord | undefined {
    return this.#byClaimId.get(claimId);
  }

  /** The lease (live or tombstone) whose token is `token`, compared in constant time. */
  byToken(prefix: TokenPrefix, token: string): LeaseRecord | undefined {
    const claimId = claimIdOfToken(prefix, token);
    const lease = claimId === undefined ? undefined : this.#byClaimId.get(claimId);
    return lease !== undefined && tokenMatches(token, lease.token) ? lease : undefined;
  }

  /** The live leases and unreported losses of one credential (the heartbeat's working set). */
  leasesOf(credentialId: string): ReadonlySet<LeaseRecord> | undefined {
    return this.#byCredential.get(credentialId);
  }

  /** Every lease and tombstone the engine remembers. */
  all(): IterableIterator<LeaseRecord> {
    return this.#byClaimId.values();
  }

  /** Counts of leases, tombstones and heap entries. */
  stats(): LeaseStats {
    let held = 0;
    let queued = 0;
    let tombstones = 0;
    for (const lease of this.#byClaimId.values()) {
      if (lease.status === 'held') held++;
      else if (lease.status === 'queued') queued++;
      else tombstones++;
    }
    let fence = 0;
    for (const last of this.#fences.values()) if (last > fence) fence = last;
    return { held, queued, tombstones, heapSize: this.#heap.size, fence };
  }

  #unindexCredential(lease: LeaseRecord): void {
    const set = this.#byCredential.get(lease.credentialId);
    if (set === undefined) return;
    set.delete(lease);
    if (set.size === 0) this.#byCredential.delete(lease.credentialId);
  }
}
