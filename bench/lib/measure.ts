/** Process CPU (user + system, every thread) in µs. */
export function cpuMicros(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/** Full GCs until the heap settles (needs `--expose-gc`). */
export function settleHeap(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc (pnpm bench does)');
  let used = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 6; i++) {
    gc();
    const now = process.memoryUsage().heapUsed;
    if (Math.abs(used - now) < 16 * 1024) return now;
    used = now;
  }
  return process.memoryUsage().heapUsed;
}

/** A wall-clock and CPU measurement of `fn`. */
export async function timeIt(fn: () => Promise<void>): Promise<{ wallMs: number; cpuMs: number }> {
  const cpu0 = cpuMicros();
  const t0 = performance.now();
  await fn();
  const wallMs = performance.now() - t0;
  return { wallMs, cpuMs: (cpuMicros() - cpu0) / 1000 };
}

/** Candidates measured once per round, in an order that rotates every round. */
export async function interleaved<K extends string>(
  rounds: number,
  candidates: Record<K, () => Promise<number>>,
): Promise<Record<K, number[]>> {
  const names = Object.keys(candidates) as K[];
  const out = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<K, number[]>;
  for (let r = 0; r < rounds; r++) {
    const order = names.map((_, i) => names[(i + r) % names.length] as K);
    for (const name of order) out[name].push(await candidates[name]());
  }
  return out;
}

/** Runs `fn` over `items` with at most `limit` in flight. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i] as T, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/**
 * Operations per second of a closed loop: `concurrency` workers, each calling `op(worker)`
 * again as soon as its last call answered, for `windowMs` (after one warm-up call each).
 */
export async function opsPerSecond(concurrency: number, windowMs: number, op: (worker: number) => Promise<unknown>): Promise<number> {
  await Promise.all(Array.from({ length: concurrency }, (_, w) => op(w)));
  let done = 0;
  const t0 = performance.now();
  const until = t0 + windowMs;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      while (performance.now() < until) {
        await op(w);
        done++;
      }
    }),
  );
  return (done * 1000) / (performance.now() - t0);
}
