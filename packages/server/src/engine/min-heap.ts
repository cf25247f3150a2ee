/** An item the heap can hold: it carries its own key (`dueAt`), tie-breaker (`seq`) and slot. */
export interface HeapItem {
  /** When the engine must next look at this item (epoch ms); the heap key. */
  dueAt: number;
  /** A unique, increasing number that orders items due at the same instant (FIFO). */
  readonly seq: number;
  /** The item's index in the heap array, or -1 when it is not in the heap. */
  heapIndex: number;
}

/**
 * An indexed binary min-heap ordered by (`dueAt`, `seq`). Items remember their slot, so an
 * item can be re-keyed or removed in O(log n) without searching, and each item is in the heap
 * at most once. `peek` is O(1): a clock tick with nothing due costs one comparison.
 */
export class MinHeap<T extends HeapItem> {
  readonly #items: T[] = [];

  /** How many items the heap holds. */
  get size(): number {
    return this.#items.length;
  }

  /** The item due first, without removing it. */
  peek(): T | undefined {
    return this.#items[0];
  }

  /** True when `item` is in this heap. */
  has(item: T): boolean {
    return item.heapIndex >= 0 && this.#items[item.heapIndex] === item;
  }

  /** Add `item` (which must not be in the heap) with its current `dueAt`. */
  push(item: T): void {
    item.heapIndex = this.#items.length;
    this.#items.push(item);
    this.#up(item.heapIndex);
  }

  /** Remove and return the item due first. */
  pop(): T | undefined {
    const top = this.#items[0];
    if (top !== undefined) this.remove(top);
    return top;
  }

  /** Set `item.dueAt` and restore the heap order, adding the item if it is not in the heap. */
  schedule(item: T, dueAt: number): void {
    if (!this.has(item)) {
      item.dueAt = dueAt;
      this.push(item);
      return;
    }
    const earlier = dueAt < item.dueAt;
    item.dueAt = dueAt;
    if (earlier) this.#up(item.heapIndex);
    else this.#down(item.heapIndex);
  }

  /** Remove `item` if it is in the heap. */
  remove(item: T): void {
    if (!this.has(item)) return;
    const index = item.heapIndex;
    const last = this.#items.pop() as T;
    item.heapIndex = -1;
    if (last === item) return;
    this.#items[index] = last;
    last.heapIndex = index;
    this.#up(index);
    this.#down(last.heapIndex);
  }

  #less(a: T, b: T): boolean {
    return a.dueAt < b.dueAt || (a.dueAt === b.dueAt && a.seq < b.seq);
  }

  #up(start: number): void {
    const items = this.#items;
    let index = start;
    const item = items[index] as T;
    while (index > 0) {
      const parentIndex = (index - 1) >> 1;
      const parent = items[parentIndex] as T;
      if (!this.#less(item, parent)) break;
      items[index] = parent;
      parent.heapIndex = index;
      index = parentIndex;
    }
    items[index] = item;
    item.heapIndex = index;
  }

  #down(start: number): void {
    const items = this.#items;
    const length = items.length;
    let index = start;
    const item = items[index] as T;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= length) break;
      const right = left + 1;
      let child = left;
      if (right < length && this.#less(items[right] as T, items[left] as T)) child = right;
      const candidate = items[child] as T;
      if (!this.#less(candidate, item)) break;
      items[index] = candidate;
      candidate.heapIndex = index;
      index = child;
    }
    items[index] = item;
    item.heapIndex = index;
  }
}
