import type { LeaseRecord } from './lease-record.js';
import type { HeapItem } from './min-heap.js';
import { createSortedMap, type SortedMap } from './sorted-map.js';
import { compareKeys } from './space-keys.js';

/** The last release of a key, shown on the next holder's row (wire `PreviousRelease`). */
export interface PreviousRelease {
  /** The released claim's id. */
  readonly claimId: string;
  /** Who released it. */
  readonly holder: string;
  /** When (epoch ms). */
  readonly releasedAt: number;
  /** What the releaser left (any JSON), or `null`. */
  readonly observation: unknown;
}

/**
 * One key of a space: its holder, its FIFO queue of waiters and its last release. A free key
 * that remembers a release sits in the space claims' idle-key heap (`dueAt`: when it is
 * forgotten, 10 minutes after it became free).
 */
export interface KeyState extends HeapItem {
  /** The space the key belongs to. */
  readonly space: SpaceState;
  /** The key itself. */
  readonly key: string;
  /** The current holder, or `null` when the key is free. */
  holder: LeaseRecord | null;
  /** Waiting claims in arrival order (ascending `seq`), so positions come by binary search. */
  readonly queue: LeaseRecord[];
  /** The last release of this key, or `null`. */
  previousRelease: PreviousRelease | null;
  /** When a free key is forgotten (epoch ms); meaningful only while in the idle-key heap. */
  dueAt: number;
  /** Creation order (heap tie-breaker). */
  readonly seq: number;
  /** Slot in the idle-key heap, -1 when absent. */
  heapIndex: number;
}

/** A cancelled run, remembered for `CANCELLED_SCOPE_MS` (in the cancelled-run heap by `dueAt`). */
export interface CancelledScope extends HeapItem {
  /** The space the run belongs to. */
  readonly space: SpaceState;
  /** The run. */
  readonly scopeId: string;
  /** When it was cancelled (epoch ms). */
  readonly cancelledAt: number;
  /** When it is forgotten (epoch ms). */
  dueAt: number;
  /** Creation order (heap tie-breaker). */
  readonly seq: number;
  /** Slot in the cancelled-run heap, -1 when absent. */
  heapIndex: number;
}

/** One space of one account: its keys (point lookups), held keys in order, and its runs. */
export interface SpaceState {
  /** The owning account. */
  readonly accountId: string;
  /** The space's id (lowercase UUID). */
  readonly spaceId: string;
  /** Every key with a holder, waiters or a release remembered (at most 10 minutes once free). */
  readonly keys: Map<string, KeyState>;
  /** The held keys, in key order (`compareKeys`: by code point), for listing. */
  readonly held: SortedMap<string, KeyState>;
  /** Live (held or queued) claims of each run, for cancellation. */
  readonly scopes: Map<string, Set<LeaseRecord>>;
  /** Cancelled runs, remembered for `CANCELLED_SCOPE_MS` after their cancellation. */
  readonly cancelled: Map<string, CancelledScope>;
}

/** A new, empty space. */
export function createSpaceState(accountId: string, spaceId: string): SpaceState {
  return {
    accountId,
    spaceId,
    keys: new Map(),
    held: createSortedMap<string, KeyState>(compareKeys),
    scopes: new Map(),
    cancelled: new Map(),
  };
}

/** The key's state, created (free, with heap order `seq`) if the space has none yet. */
export function keyStateOf(space: SpaceState, key: string, seq: number): KeyState {
  let state = space.keys.get(key);
  if (state === undefined) {
    state = { space, key, holder: null, queue: [], previousRelease: null, dueAt: 0, seq, heapIndex: -1 };
    space.keys.set(key, state);
  }
  return state;
}

/** Index of `lease` in the queue (by `seq`), or -1. */
export function queueIndexOf(queue: readonly LeaseRecord[], lease: LeaseRecord): number {
  let lo = 0;
  let hi = queue.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const seq = (queue[mid] as LeaseRecord).seq;
    if (seq === lease.seq) return queue[mid] === lease ? mid : -1;
    if (seq < lease.seq) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** Remove `lease` from the key's queue, if it waits there. */
export function leaveQueue(state: KeyState, lease: LeaseRecord): void {
  const index = queueIndexOf(state.queue, lease);
  if (index >= 0) state.queue.splice(index, 1);
}

/** True when the key has no holder and no waiters. */
export function isFree(state: KeyState): boolean {
  return state.holder === null && state.queue.length === 0;
}

/** Forget a free key (and its last release); answers whether it was forgotten. */
export function dropKey(state: KeyState): boolean {
  if (!isFree(state)) return false;
  state.previousRelease = null;
  const { space, key } = state;
  if (space.keys.get(key) === state) space.keys.delete(key);
  if (space.held.get(key) === state) space.held.delete(key);
  return true;
}

/** True when the space remembers nothing: no keys, no live runs, no cancelled runs. */
export function isEmptySpace(space: SpaceState): boolean {
  return space.keys.size === 0 && space.scopes.size === 0 && space.cancelled.size === 0;
}

/** Add a live claim to its run's index. */
export function indexScope(space: SpaceState, lease: LeaseRecord): void {
  const scopeId = lease.scopeId as string;
  let set = space.scopes.get(scopeId);
  if (set === undefined) {
    set = new Set();
    space.scopes.set(scopeId, set);
  }
  set.add(lease);
}

/** Remove a claim from its run's index. */
export function unindexScope(space: SpaceState, lease: LeaseRecord): void {
  const scopeId = lease.scopeId as string;
  const set = space.scopes.get(scopeId);
  if (set === undefined) return;
  set.delete(lease);
  if (set.size === 0) space.scopes.delete(scopeId);
}
