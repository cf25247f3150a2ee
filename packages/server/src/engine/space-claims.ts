import { canSeeSpace, type Caller } from './credentials.js';
import { EngineError } from './errors.js';
import type { HeartbeatResult } from './heartbeat-result.js';
import type { LeaseEngine, LeaseKindHandler } from './lease-engine.js';
import { TOMBSTONE_MS, type LeaseRecord } from './lease-record.js';
import { MinHeap } from './min-heap.js';
import {
  claimView,
  releasedView,
  type Claim,
  type ClaimList,
  type ReleasedClaim,
  type ScopeCancellation,
} from './space-claim-views.js';
import {
  createSpaceState,
  dropKey,
  indexScope,
  isEmptySpace,
  isFree,
  keyStateOf,
  leaveQueue,
  unindexScope,
  type CancelledScope,
  type KeyState,
  type SpaceState,
} from './space-state.js';
import { requireStorableJson } from './json-value.js';
import { heartbeatSpaceLease } from './space-claim-heartbeat.js';
import { spaceLeaseOfToken } from './space-claim-tokens.js';
import { lostError, notHeld, scopeCancelled } from './space-claim-errors.js';
import { requireInt, requireString, requireUuid } from './validation.js';
import { compareKeys, decodeCursor, encodeCursor, requireKey } from './space-keys.js';
import {
  SPACE_LEASE_MAX_SECONDS,
  SPACE_LEASE_MIN_SECONDS,
  type AcquireParams,
  type KeyParams,
  type ListParams,
} from './space-claim-params.js';

/** How long a cancelled run is remembered (acquires in it answer `scope_cancelled`): 24 hours. */
export const CANCELLED_SCOPE_MS = 24 * 60 * 60 * 1000;

/**
 * Space claims: exclusive leases on keys of (account, space), FIFO waiters, runs that can be
 * cancelled, and the last release of each key. Implements the `space` lease kind.
 *
 * Bounded memory: a free key that remembers a release is forgotten `TOMBSTONE_MS` (10 min) after
 * it became free, a cancelled run `CANCELLED_SCOPE_MS` (24 h) after its cancellation, and a space
 * as soon as it has no keys, no live runs and no cancelled runs. Both deadlines sit in min-heaps
 * swept lazily at the end of the lease engine's `processExpirations`, so the cost grows with
 * what is forgotten.
 */
export class SpaceClaims implements LeaseKindHandler {
  readonly #leases: LeaseEngine;
  readonly #spaces = new Map<string, SpaceState>();
  /** Free keys that remember a release, by when they are forgotten (lazy: re-checked when due). */
  readonly #idleKeys = new MinHeap<KeyState>();
  /** Cancelled runs, by when they are forgotten. */
  readonly #cancelledScopes = new MinHeap<CancelledScope>();
  #seq = 0;

  /** Space claims on top of the shared lease engine. */
  constructor(leases: LeaseEngine) {
    this.#leases = leases;
    leases.register('space', this);
    leases.addSweeper((now) => this.#sweep(now));
  }

  /** Take `key`: held (201) when free, queued (202) when held and `wait`, else `claim_held`. */
  acquire(params: AcquireParams): Claim {
    const now = this.#leases.sync();
    const key = requireKey(params.key);
    const scopeId = requireUuid(params.scopeId, 'scopeId');
    const holder = requireString(params.holder, 1, 200, 'holder');
    const holderSession = requireString(params.holderSession, 1, 200, 'holderSession');
    const leaseSeconds = requireInt(params.leaseSeconds, SPACE_LEASE_MIN_SECONDS, SPACE_LEASE_MAX_SECONDS, 'leaseSeconds', 30);
    const space = this.#space(params.credential, params.spaceId, true);
    if (space.cancelled.has(scopeId)) throw scopeCancelled();
    const existing = space.keys.get(key);
    if (existing?.holder && params.wait !== true) {
      throw new EngineError('claim_held', 'The key is held by another claimant.', 'key');
    }
    const state = existing ?? keyStateOf(space, key, ++this.#seq);
    const lease = this.#leases.create({
      kind: 'space',
      token: 'lht_',
      credentialId: params.credential.credentialId,
      accountId: space.accountId,
      holderSession,
      owner: state,
      spaceId: space.spaceId,
      key,
      scopeId,
      holder,
      leaseSeconds,
    });
    if (state.holder === null) {
      this.#grant(state, lease, now);
    } else {
      state.queue.push(lease);
      this.#leases.setExpiry(lease, now + leaseSeconds * 1000);
    }
    indexScope(space, lease);
    return claimView(lease, state, true);
  }

  /** The current holder's row of `key`, or `claim_not_found` when the key is free. */
  get(params: KeyParams): Claim {
    this.#leases.sync();
    const key = requireKey(params.key);
    const state = this.#space(params.credential, params.spaceId, false)?.keys.get(key);
    if (state?.holder == null) throw new EngineError('claim_not_found', 'Nobody holds this key.', 'key');
    return claimView(state.holder, state, false);
  }

  /**
   * One page of held claims in key order (by code point), optionally only keys starting with
   * `prefix`. The cursor stands for the last key of the page, so a key held throughout a walk is
   * listed exactly once, whatever is acquired or released between pages.
   */
  list(params: ListParams): ClaimList {
    this.#leases.sync();
    const limit = requireInt(params.limit, 1, 100, 'limit', 50);
    const prefix = params.prefix ?? '';
    const after = params.cursor === undefined ? undefined : decodeCursor(params.cursor);
    const space = this.#space(params.credential, params.spaceId, false);
    const data: Claim[] = [];
    let nextCursor: string | null = null;
    if (space !== undefined) {
      const start = after !== undefined && compareKeys(after, prefix) > 0 ? after : prefix;
      for (const [key, state] of space.held.entries(start)) {
        if (after !== undefined && compareKeys(key, after) <= 0) continue;
        if (!key.startsWith(prefix)) break;
        if (data.length === limit) {
          nextCursor = encodeCursor((data[data.length - 1] as Claim).key);
          break;
        }
        if (state.holder !== null) data.push(claimView(state.holder, state, false));
      }
    }
    return { object: 'list', data, nextCursor };
  }

  /** Extend the holder's lease to now + `leaseSeconds` (default 30). */
  renew(params: KeyParams & { token: string; leaseSeconds?: number | undefined }): Claim {
    const now = this.#leases.sync();
    const leaseSeconds = requireInt(params.leaseSeconds, SPACE_LEASE_MIN_SECONDS, SPACE_LEASE_MAX_SECONDS, 'leaseSeconds', 30);
    const lease = spaceLeaseOfToken(this.#leases, params);
    if (lease.status === 'queued') throw new EngineError('claim_queued', 'The claim is still waiting in the queue.', 'token');
    if (lease.status === 'lost') throw lostError(lease);
    if (lease.status !== 'held') throw notHeld();
    lease.leaseSeconds = leaseSeconds;
    this.#leases.setExpiry(lease, now + leaseSeconds * 1000);
    return claimView(lease, lease.owner as KeyState, false);
  }

  /** Release with the token (or leave the queue); repeats and cancelled runs answer the same row. */
  release(params: KeyParams & { token: string; observation?: unknown }): ReleasedClaim {
    const now = this.#leases.sync();
    const observation = requireStorableJson(params.observation ?? null, 'observation');
    const lease = spaceLeaseOfToken(this.#leases, params);
    if (lease.released !== null) return releasedView(lease);
    if (lease.status === 'lost' && lease.lostReason !== 'scope_cancelled') throw lostError(lease);
    const state = lease.owner as KeyState;
    const row = { releasedAt: now, observation };
    const wasHolder = state.holder === lease;
    const wasQueued = lease.status === 'queued';
    this.#leases.release(lease, now, row);
    if (wasHolder) {
      state.previousRelease = { claimId: lease.claimId, holder: lease.holder as string, ...row };
      this.#passOn(state, now);
    } else if (wasQueued) {
      leaveQueue(state, lease);
    }
    unindexScope(state.space, lease);
    this.#dropSpaceIfEmpty(state.space);
    return releasedView(lease);
  }

  /** Cancel a run: its held and queued claims are lost now; repeating answers `claimsLost: 0`. */
  cancelScope(params: { credential: Caller; spaceId: string; scopeId: string }): ScopeCancellation {
    const now = this.#leases.sync();
    const scopeId = requireUuid(params.scopeId, 'scopeId');
    const space = this.#space(params.credential, params.spaceId, true);
    const claimsLost = this.cancelIn(space, scopeId, now);
    return {
      object: 'scope_cancellation',
      spaceId: space.spaceId,
      scopeId,
      cancelled: true,
      cancelledAt: (space.cancelled.get(scopeId) as CancelledScope).cancelledAt,
      claimsLost,
    };
  }

  /** Cancel `scopeId` in `space` at `now` (idempotent); answers how many claims were lost. */
  cancelIn(space: SpaceState, scopeId: string, now: number): number {
    if (space.cancelled.has(scopeId)) return 0;
    const marker: CancelledScope = { space, scopeId, cancelledAt: now, dueAt: now + CANCELLED_SCOPE_MS, seq: ++this.#seq, heapIndex: -1 };
    space.cancelled.set(scopeId, marker);
    this.#cancelledScopes.push(marker);
    const live = [...(space.scopes.get(scopeId) ?? [])];
    space.scopes.delete(scopeId);
    // Waiters of the run leave first, so each freed key passes to a waiter of another run.
    for (const lease of live) {
      if (lease.status !== 'queued') continue;
      this.#leases.markLost(lease, now, 'scope_cancelled');
      leaveQueue(lease.owner as KeyState, lease);
    }
    for (const lease of live) if (lease.status === 'held') this.#leases.lose(lease, now, 'scope_cancelled');
    return live.length;
  }

  /** The account's spaces that hold or queue anything (any order), for the activity views. */
  *spacesOf(accountId: string): IterableIterator<SpaceState> {
    for (const space of this.#spaces.values()) if (space.accountId === accountId) yield space;
  }

  /** The space of an account, if anything happened in it yet (for controls). */
  spaceOf(accountId: string, spaceId: string, create: boolean): SpaceState | undefined {
    const id = `${accountId}\n${spaceId}`;
    let space = this.#spaces.get(id);
    if (space === undefined && create) {
      space = createSpaceState(accountId, spaceId);
      this.#spaces.set(id, space);
    }
    return space;
  }

  /** Lease-kind hook: a space lease was lost; free its place and pass the key on. */
  detach(lease: LeaseRecord, at: number): void {
    const state = lease.owner as KeyState;
    unindexScope(state.space, lease);
    if (state.holder === lease) this.#passOn(state, at);
    else leaveQueue(state, lease);
    this.#dropSpaceIfEmpty(state.space);
  }

  /** Lease-kind hook: heartbeat a held claim (extend, never cut) or a waiter (keep its place). */
  heartbeat(lease: LeaseRecord, ttlSeconds: number | null, now: number): HeartbeatResult {
    return heartbeatSpaceLease(this.#leases, lease, ttlSeconds, now);
  }

  #grant(state: KeyState, lease: LeaseRecord, at: number): void {
    state.holder = lease;
    this.#leases.grant(lease, at, at + (lease.leaseSeconds as number) * 1000);
    state.space.held.set(state.key, state);
  }

  /**
   * The key's holder is gone at `at`: grant the first waiter still waiting, or free the key —
   * forgotten at once when it remembers no release, else 10 minutes from `at`.
   */
  #passOn(state: KeyState, at: number): void {
    state.holder = null;
    for (let next = state.queue.shift(); next !== undefined; next = state.queue.shift()) {
      if (next.expiresAt !== null && next.expiresAt <= at) {
        this.#leases.markLost(next, next.expiresAt, 'lapsed');
        unindexScope(state.space, next);
        continue;
      }
      this.#grant(state, next, at);
      return;
    }
    state.space.held.delete(state.key);
    if (state.previousRelease === null) this.#forgetKey(state);
    else this.#idleKeys.schedule(state, at + TOMBSTONE_MS);
  }

  /** Forget what is due by `now`: free keys past their 10 minutes, cancelled runs past 24 h. */
  #sweep(now: number): void {
    for (let state = this.#idleKeys.peek(); state !== undefined && state.dueAt <= now; state = this.#idleKeys.peek()) {
      this.#idleKeys.remove(state);
      // Taken again since it was scheduled: its next `#passOn` schedules it anew.
      if (isFree(state)) this.#forgetKey(state);
    }
    for (let marker = this.#cancelledScopes.peek(); marker !== undefined && marker.dueAt <= now; marker = this.#cancelledScopes.peek()) {
      this.#cancelledScopes.remove(marker);
      if (marker.space.cancelled.get(marker.scopeId) === marker) marker.space.cancelled.delete(marker.scopeId);
      this.#dropSpaceIfEmpty(marker.space);
    }
  }

  /** Forget a free key (and its last release), then its space if nothing is left in it. */
  #forgetKey(state: KeyState): void {
    this.#idleKeys.remove(state);
    if (dropKey(state)) this.#dropSpaceIfEmpty(state.space);
  }

  /** Forget a space that remembers nothing (tombstones of its leases keep working without it). */
  #dropSpaceIfEmpty(space: SpaceState): void {
    if (!isEmptySpace(space)) return;
    const id = `${space.accountId}\n${space.spaceId}`;
    if (this.#spaces.get(id) === space) this.#spaces.delete(id);
  }

  #space(caller: Caller, rawSpaceId: string, create: true): SpaceState;
  #space(caller: Caller, rawSpaceId: string, create: false): SpaceState | undefined;
  #space(caller: Caller, rawSpaceId: string, create: boolean): SpaceState | undefined {
    const spaceId = requireUuid(rawSpaceId, 'spaceId');
    if (!canSeeSpace(caller, spaceId)) throw new EngineError('space_not_found', 'No such space.', 'spaceId');
    return this.spaceOf(caller.accountId, spaceId, create);
  }

}
