import type { KeyConfig, RandomSource } from '../../engine/index.js';

/** How a SQL store runs. */
export interface SqlStoreOptions {
  /** `'manual'`: the database's clock moves only through `advanceClock` (default `'real'`). */
  clock?: 'real' | 'manual';
  /** Where a manual clock starts (epoch ms; default 2026-01-01T00:00:00Z), when it is first set manual. */
  startTime?: number;
  /**
   * The database's API keys (default: keep those already in the database). A set replaces what
   * is there (other keys deleted, the set's standing written: the last process to start with a
   * set makes it every process's); the demo keys (`DEFAULT_KEYS`) never replace a set and are
   * registered only in a database that never had one (`adoptKeySet`).
   */
  keys?: readonly KeyConfig[];
  /** Randomness for ids and tokens (default `node:crypto`). */
  random?: RandomSource;
  /** Milliseconds between background sweeps (default 1000; 0: none, call `sweep()` yourself). */
  sweepIntervalMs?: number;
  /** Rows each sweep step handles at most (default 500). */
  sweepBatch?: number;
  /** Apply pending migrations first (default true). */
  migrate?: boolean;
  /**
   * How long (ms) a key's standing read from the database may answer authentication in this
   * process (default 1000; 0: read it on every request). A block, suspension, expiry or rate
   * limit set by another process acts here within this bound; set by this process's controls,
   * at once.
   */
  credentialCacheMs?: number;
  /** Keys cached at most (default 10,000). */
  credentialCacheEntries?: number;
  /** The monotonic clock (ms) that ages cached keys (default `performance.now`; tests inject one). */
  cacheClock?: () => number;
}
