import btreeModule from 'sorted-btree';
import type * as btree from 'sorted-btree';

type BTreeClass = typeof btreeModule.default;

// `sorted-btree` is CommonJS with `exports.default`: Node's ESM loader hands us `module.exports`,
// bundlers and Vitest hand us the class itself. Accept both.
const loaded = btreeModule as unknown as BTreeClass & { default?: BTreeClass };
const BTreeCtor: BTreeClass = typeof loaded === 'function' && loaded.default === undefined ? loaded : (loaded.default as BTreeClass);

/** A B+ tree keeping entries in key order (the `sorted-btree` package). */
export type SortedMap<K, V> = btree.default<K, V>;

/**
 * A new, empty sorted map ordered by `compare`; by default strings sort by UTF-16 code units
 * and numbers numerically.
 */
export function createSortedMap<K extends string | number, V>(compare?: (a: K, b: K) => number): SortedMap<K, V> {
  return new BTreeCtor<K, V>(undefined, compare);
}
