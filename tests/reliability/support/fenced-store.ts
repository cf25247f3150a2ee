/**
 * The guarded resource of the chaos suite: a store that checks fences the way a real one must.
 * A write carrying a fence smaller than one the store has already seen for that item is
 * rejected as stale. Every accepted write is recorded as [item, fence, worker, claimId, seq, time]
 * so the suite can check afterwards that no two holders' writes interleave within one grant.
 */
export interface AcceptedWrite {
  item: string;
  fence: number;
  worker: string;
  claimId: string;
  /** Order of acceptance across the whole store. */
  seq: number;
  /** `performance.now()` at acceptance. */
  at: number;
}

export type Verdict = 'accepted' | 'stale';

export class FencedStore {
  private readonly highest = new Map<string, number>();
  private readonly committed = new Map<string, Array<{ worker: string; fence: number }>>();
  private seq = 0;
  /** Every accepted write, in acceptance order. */
  readonly accepted: AcceptedWrite[] = [];
  /** Writes rejected because a larger fence was already seen, by kind (`key` / `task`). */
  readonly staleRejected: Record<string, number> = {};

  /** Shows a fence to the store without writing (the reconcile step of a task). */
  begin(item: string, fence: number): { stale: boolean; done: boolean } {
    const highest = this.highest.get(item) ?? 0;
    if (fence < highest) return { stale: true, done: (this.committed.get(item)?.length ?? 0) > 0 };
    this.highest.set(item, fence);
    return { stale: false, done: (this.committed.get(item)?.length ?? 0) > 0 };
  }

  /** A protected write: accepted unless a larger fence was already seen for the item. */
  write(kind: string, item: string, fence: number, worker: string, claimId: string): Verdict {
    const highest = this.highest.get(item) ?? 0;
    if (fence < highest) {
      this.staleRejected[kind] = (this.staleRejected[kind] ?? 0) + 1;
      return 'stale';
    }
    this.highest.set(item, fence);
    this.accepted.push({ item, fence, worker, claimId, seq: ++this.seq, at: performance.now() });
    return 'accepted';
  }

  /** Records the one-time effect of an item (a task's result); a second record is a duplicate. */
  commit(kind: string, item: string, fence: number, worker: string, claimId: string): Verdict {
    const verdict = this.write(kind, item, fence, worker, claimId);
    if (verdict === 'accepted') {
      const list = this.committed.get(item) ?? [];
      list.push({ worker, fence });
      this.committed.set(item, list);
    }
    return verdict;
  }

  /** Items whose one-time effect was recorded more than once. */
  duplicates(): Array<{ item: string; commits: Array<{ worker: string; fence: number }> }> {
    return [...this.committed].filter(([, commits]) => commits.length > 1).map(([item, commits]) => ({ item, commits }));
  }

  /** How many items have their one-time effect recorded. */
  committedCount(prefix: string): number {
    let count = 0;
    for (const [item, commits] of this.committed) if (item.startsWith(prefix) && commits.length > 0) count++;
    return count;
  }
}

/** A violation of mutual exclusion found in the accepted writes. */
export interface Overlap {
  item: string;
  problem: string;
  writes: AcceptedWrite[];
}

/**
 * Checks the accepted writes of every item: one grant (fence) belongs to one holder (worker and
 * claim), and the writes of different grants never interleave — once a later grant has written,
 * no write of an earlier grant is accepted.
 */
export function findOverlaps(writes: readonly AcceptedWrite[]): Overlap[] {
  const byItem = new Map<string, AcceptedWrite[]>();
  for (const write of writes) {
    const list = byItem.get(write.item) ?? [];
    list.push(write);
    byItem.set(write.item, list);
  }
  const overlaps: Overlap[] = [];
  for (const [item, list] of byItem) {
    list.sort((a, b) => a.seq - b.seq);
    const holderOf = new Map<number, AcceptedWrite>();
    const closed = new Set<number>();
    let current: number | undefined;
    for (const write of list) {
      const holder = holderOf.get(write.fence);
      if (holder === undefined) holderOf.set(write.fence, write);
      else if (holder.worker !== write.worker || holder.claimId !== write.claimId) {
        overlaps.push({ item, problem: `fence ${write.fence} written by two holders`, writes: [holder, write] });
      }
      if (current !== undefined && write.fence !== current) {
        closed.add(current);
        if (closed.has(write.fence)) {
          overlaps.push({ item, problem: `grant ${write.fence} wrote again after a later grant had written`, writes: [write] });
        }
        if (write.fence < current) overlaps.push({ item, problem: `fence went back from ${current} to ${write.fence}`, writes: [write] });
      }
      current = write.fence;
    }
  }
  return overlaps;
}
