import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MinHeap, type HeapItem } from './min-heap.js';

function item(dueAt: number, seq: number): HeapItem {
  return { dueAt, seq, heapIndex: -1 };
}

describe('MinHeap', () => {
  it('pops by dueAt, then seq', () => {
    const heap = new MinHeap<HeapItem>();
    const items = [item(5, 1), item(3, 2), item(5, 0), item(1, 3)];
    for (const i of items) heap.push(i);
    expect(heap.peek()).toBe(items[3]);
    const order: Array<[number, number]> = [];
    for (let top = heap.pop(); top; top = heap.pop()) order.push([top.dueAt, top.seq]);
    expect(order).toEqual([[1, 3], [3, 2], [5, 0], [5, 1]]);
    expect(heap.size).toBe(0);
  });

  it('re-keys and removes in place', () => {
    const heap = new MinHeap<HeapItem>();
    const a = item(10, 1);
    const b = item(20, 2);
    const c = item(30, 3);
    [a, b, c].forEach((i) => heap.push(i));
    heap.schedule(c, 5);
    expect(heap.peek()).toBe(c);
    heap.schedule(c, 40);
    expect(heap.peek()).toBe(a);
    heap.remove(a);
    expect(heap.has(a)).toBe(false);
    expect(a.heapIndex).toBe(-1);
    expect(heap.peek()).toBe(b);
    heap.remove(a); // a no-op
    expect(heap.size).toBe(2);
  });

  it('matches a sorted model under random pushes, re-keys, removes and pops', () => {
    type Op = { op: 'push'; at: number } | { op: 'rekey'; pick: number; at: number } | { op: 'remove'; pick: number } | { op: 'pop' };
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.record({ op: fc.constant('push' as const), at: fc.integer({ min: 0, max: 50 }) }),
      fc.record({ op: fc.constant('rekey' as const), pick: fc.nat(), at: fc.integer({ min: 0, max: 50 }) }),
      fc.record({ op: fc.constant('remove' as const), pick: fc.nat() }),
      fc.record({ op: fc.constant('pop' as const) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), (ops) => {
        const heap = new MinHeap<HeapItem>();
        let model: HeapItem[] = [];
        let seq = 0;
        const byOrder = (x: HeapItem, y: HeapItem): number => x.dueAt - y.dueAt || x.seq - y.seq;
        for (const o of ops) {
          if (o.op === 'push') {
            const i = item(o.at, seq++);
            heap.push(i);
            model.push(i);
          } else if (o.op === 'pop') {
            model.sort(byOrder);
            expect(heap.pop()).toBe(model.shift());
          } else if (model.length > 0) {
            const target = model[o.pick % model.length] as HeapItem;
            if (o.op === 'rekey') heap.schedule(target, o.at);
            else {
              heap.remove(target);
              model = model.filter((m) => m !== target);
            }
          }
          expect(heap.size).toBe(model.length);
          model.sort(byOrder);
          expect(heap.peek()).toBe(model[0]);
        }
      }),
      { numRuns: 200 },
    );
  });
});
