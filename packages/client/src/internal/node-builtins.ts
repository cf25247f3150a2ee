/**
 * A Node builtin module (`node:fs`, `node:events`, `node:module`), loaded through
 * `process.getBuiltinModule` (Node ≥ 20.16) instead of a static `node:` import, so the shared code
 * stays browser-safe: outside Node (or where it is unavailable) the answer is `undefined`.
 */
export function nodeBuiltin<T>(id: `node:${string}`): T | undefined {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  try {
    return proc?.getBuiltinModule?.(id) as T | undefined;
  } catch {
    return undefined;
  }
}

/** Lifts the listener cap of an `AbortSignal` many waiters listen to (Node warns past 10); a no-op elsewhere. */
export function uncapListeners(signal: AbortSignal): void {
  nodeBuiltin<{ setMaxListeners?: (n: number, ...targets: EventTarget[]) => void }>('node:events')?.setMaxListeners?.(0, signal);
}
