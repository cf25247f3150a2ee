/** The three kinds of work the demo fleet shares. */
export type WorkKind = 'task' | 'message' | 'key';

/** The verdict of a fenced write. */
export type CommitVerdict = 'accepted' | 'stale';

interface Entry {
  /** The largest fence the resource has seen for this item. */
  fence: number;
  /** Who showed that fence first. */
  fenceHolder: string | undefined;
  /** Accepted commits, by worker; more than one is work done twice. */
  commits: Array<{ worker: string; fence: number }>;
}

/**
 * The guarded resource of the demo: a store that checks fences the way a real one must. A
 * worker first *reconciles* (`begin`), which shows its fence to the store and says whether the
 * item's effect is already recorded; then it *commits*. A commit carrying a fence smaller than
 * one already seen is rejected as stale — that is what keeps a worker whose lease was lost from
 * writing after its successor started. The store does not refuse a second commit with a fresh
 * fence: if the lease protocol failed, the duplicate is counted, not hidden.
 */
export class FencedLedger {
  private readonly items = new Map<string, Entry>();
  /** Rejected stale writes, by kind. */
  readonly staleRejected: Record<WorkKind, number> = { task: 0, message: 0, key: 0 };
  /** Reconciliations that found the effect already recorded (work a lost lease had finished). */
  readonly alreadyDone: Record<WorkKind, number> = { task: 0, message: 0, key: 0 };
  /** `kind id fence: holder, holder`: one fence shown by two holders (fences must strictly increase per grant). */
  readonly fenceReused: string[] = [];

  /** Registers every item of a kind, so lost work (never committed) is visible at the end. */
  expect(kind: WorkKind, ids: Iterable<string>): void {
    for (const id of ids) this.items.set(`${kind}:${id}`, { fence: 0, fenceHolder: undefined, commits: [] });
  }

  /**
   * Shows the worker's fence to the store; says whether the effect is already recorded. A fence
   * (above 0) that another worker showed first is a reused fence: each grant's must be larger.
   */
  begin(kind: WorkKind, id: string, fence: number, worker?: string): { done: boolean; stale: boolean } {
    const entry = this.entry(kind, id);
    if (fence < entry.fence) return { done: entry.commits.length > 0, stale: true };
    if (fence > 0 && fence === entry.fence && worker !== undefined && entry.fenceHolder !== undefined && entry.fenceHolder !== worker) {
      this.fenceReused.push(`${kind} ${id} ${fence}: ${entry.fenceHolder}, ${worker}`);
    }
    if (fence > entry.fence || entry.fenceHolder === undefined) entry.fenceHolder = worker;
    entry.fence = fence;
    const done = entry.commits.length > 0;
    if (done) this.alreadyDone[kind] += 1;
    return { done, stale: false };
  }

  /** Whether the item's effect is recorded (a read that carries no fence). */
  isDone(kind: WorkKind, id: string): boolean {
    return (this.items.get(`${kind}:${id}`)?.commits.length ?? 0) > 0;
  }

  /** Records the effect unless a larger fence was already seen. */
  commit(kind: WorkKind, id: string, fence: number, worker: string): CommitVerdict {
    const entry = this.entry(kind, id);
    if (fence < entry.fence) {
      this.staleRejected[kind] += 1;
      return 'stale';
    }
    entry.fence = fence;
    entry.commits.push({ worker, fence });
    return 'accepted';
  }

  /** Items committed exactly once, more than once (with who did them), and never. */
  tally(kind: WorkKind): { once: number; duplicates: Array<{ id: string; commits: Entry['commits'] }>; missing: string[] } {
    let once = 0;
    const duplicates: Array<{ id: string; commits: Entry['commits'] }> = [];
    const missing: string[] = [];
    const prefix = `${kind}:`;
    for (const [name, entry] of this.items) {
      if (!name.startsWith(prefix)) continue;
      const id = name.slice(prefix.length);
      if (entry.commits.length === 1) once += 1;
      else if (entry.commits.length === 0) missing.push(id);
      else duplicates.push({ id, commits: entry.commits });
    }
    return { once, duplicates, missing };
  }

  /** Accepted commits of a kind, by worker. */
  commitsBy(kind: WorkKind): Map<string, number> {
    const prefix = `${kind}:`;
    const by = new Map<string, number>();
    for (const [name, entry] of this.items) {
      if (!name.startsWith(prefix)) continue;
      for (const { worker } of entry.commits) by.set(worker, (by.get(worker) ?? 0) + 1);
    }
    return by;
  }

  /** How many items of a kind have an accepted commit. */
  doneCount(kind: WorkKind): number {
    const prefix = `${kind}:`;
    let count = 0;
    for (const [name, entry] of this.items) if (name.startsWith(prefix) && entry.commits.length > 0) count += 1;
    return count;
  }

  private entry(kind: WorkKind, id: string): Entry {
    const name = `${kind}:${id}`;
    let entry = this.items.get(name);
    if (!entry) this.items.set(name, (entry = { fence: 0, fenceHolder: undefined, commits: [] }));
    return entry;
  }
}
