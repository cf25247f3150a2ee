import { describe, expect, it } from 'vitest';
import { reserveIdempotencyKey, type IdempotencyStore } from './idempotency-store.js';
import { MemoryIdempotencyStore } from './memory-idempotency-store.js';
import { ManualClock } from '../monotonic-clock.js';

describe('MemoryIdempotencyStore', () => {
  it('get / put / reserve / delete, with expiry on the wall clock', async () => {
    const clock = new ManualClock(1_000);
    const store = new MemoryIdempotencyStore({ clock });
    expect(await store.get('op')).toBeUndefined();
    expect(await store.reserve('op', 'k1', 100)).toBe('k1');
    expect(await store.reserve('op', 'k2', 100)).toBe('k1');
    await store.put('op', 'k3', 100);
    expect(await store.get('op')).toBe('k3');
    clock.advance(100);
    expect(await store.get('op')).toBeUndefined();
    expect(await store.reserve('op', 'k4', 100)).toBe('k4');
    await store.delete('op');
    await store.delete('never-there');
    expect(await store.get('op')).toBeUndefined();
  });

  it('prunes expired entries', async () => {
    const clock = new ManualClock(0);
    const store = new MemoryIdempotencyStore({ clock });
    await store.put('a', 'k', 10);
    await store.put('b', 'k', 1_000);
    clock.advance(10);
    expect(store.prune()).toBe(1);
    expect(store.size).toBe(1);
  });

  it('reserveIdempotencyKey falls back to get + put for a store without reserve', async () => {
    const inner = new MemoryIdempotencyStore();
    const plain: IdempotencyStore = { get: (o) => inner.get(o), put: (o, k, t) => inner.put(o, k, t), delete: (o) => inner.delete(o) };
    expect(await reserveIdempotencyKey(plain, 'op', 'first')).toBe('first');
    expect(await reserveIdempotencyKey(plain, 'op', 'second')).toBe('first');
  });
});
