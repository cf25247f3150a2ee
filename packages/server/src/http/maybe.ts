import type { MaybePromise } from '../store/operations.js';

/**
 * `fn(value)`, after `value` settles when it is a promise: the synchronous fast path (the memory
 * store answers without promises) stays synchronous, and only real promises are awaited.
 * @example
 * mapMaybe(ops.claims.get(params), (claim) => ({ status: 200, body: claim }));
 */
export function mapMaybe<T, R>(value: MaybePromise<T>, fn: (settled: T) => MaybePromise<R>): MaybePromise<R> {
  return value instanceof Promise ? value.then(fn) : fn(value);
}
