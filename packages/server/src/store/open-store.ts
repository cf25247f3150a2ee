import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { DEFAULT_KEYS, ManualClock, RealClock, type KeyConfig, type RandomSource } from '../engine/index.js';
import { StoreOpenError } from './errors.js';
import { MemoryStore } from './memory/memory-store.js';
import type { Store } from './operations.js';
import { redactText, redactUrl } from './redact.js';
import type { SqlDriver } from './sql/driver.js';
import type { PgDriverOptions } from './sql/drivers/pg-driver.js';
import type { MigrationReport } from './sql/migrate.js';

// The SQL store and its drivers (pg, PGlite) are loaded when a SQL store is opened, so a server
// on the memory store never loads them (bench/startup.ts: the memory cold start).

/** How `openStore` builds a store (driver options apply to PostgreSQL only). */
export interface OpenStoreOptions extends Omit<PgDriverOptions, 'url'> {
  /** `'manual'`: time moves only through `controls.advanceClock` (default `'real'`). */
  clock?: 'real' | 'manual';
  /** Start of a manual clock, epoch ms (default 2026-01-01T00:00:00Z). */
  startTime?: number;
  /** API keys (default: the demo keys). */
  keys?: readonly KeyConfig[];
  /** Randomness for ids and tokens (default `node:crypto`). */
  random?: RandomSource;
  /** SQL stores: ms between background sweeps (default 1000; 0: none). */
  sweepIntervalMs?: number;
  /** SQL stores: how long a key's standing may answer authentication without a statement, ms (default 1000; 0: never). */
  credentialCacheMs?: number;
}

/** What a `--store` value names. */
export type StoreTarget = { kind: 'memory' } | { kind: 'postgres'; url: string } | { kind: 'pglite'; dataDir: string };

/** What `--store` accepts, for messages (the README and `--help` say the same). */
export const STORE_RULE = 'use memory, a postgres:// URL or a directory path (absolute, or starting with ./, ../ or ~/, e.g. ./leasehold-data)';

/**
 * Parse a `--store` value: `memory`, a `postgres://` / `postgresql://` URL, or a directory
 * written as an explicit path (absolute, or `./`, `../`, `~/`, `.`, `..`). Anything else is
 * refused, so a mistyped URL (`postgres//user:pw@host/db`) never becomes a directory named
 * after it (with the password in its name).
 */
export function parseStoreTarget(value: string): StoreTarget {
  if (value === 'memory') return { kind: 'memory' };
  if (/^postgres(ql)?:\/\//i.test(value)) {
    try {
      new URL(value);
    } catch {
      throw new StoreOpenError(`--store ${redactUrl(value)} is not a valid PostgreSQL URL.`);
    }
    return { kind: 'postgres', url: value };
  }
  if (value === '~' || value.startsWith('~/')) return { kind: 'pglite', dataDir: join(homedir(), value.slice(1)) };
  if (isAbsolute(value) || /^\.\.?([/\\]|$)/.test(value)) return { kind: 'pglite', dataDir: resolve(value) };
  throw new StoreOpenError(`--store ${redactUrl(value)}: ${STORE_RULE}.`);
}

/** A URL with its password (and secret query parameters) hidden, for messages; see `redactUrl`. */
export function redact(url: string): string {
  return redactUrl(url);
}

async function openDriver(target: Exclude<StoreTarget, { kind: 'memory' }>, options: OpenStoreOptions): Promise<SqlDriver> {
  if (target.kind === 'pglite') {
    try {
      const { createPgliteDriver } = await import('./sql/drivers/pglite-driver.js');
      return await createPgliteDriver({ dataDir: target.dataDir });
    } catch (error) {
      const { message, code } = error as NodeJS.ErrnoException;
      throw new StoreOpenError(`Cannot open the embedded store in ${target.dataDir}: ${message || code || String(error)}`, { cause: error });
    }
  }
  const { createPgDriver } = await import('./sql/drivers/pg-driver.js');
  const driver = createPgDriver({ ...options, url: target.url });
  try {
    await driver.query('SELECT 1');
  } catch (error) {
    await driver.close().catch(() => {});
    const reason = (error as { code?: string }).code ?? (error as Error).message;
    throw new StoreOpenError(redactText(`Cannot connect to PostgreSQL at ${redactUrl(target.url)}: ${reason}: ${(error as Error).message}`), {
      cause: error,
    });
  }
  return driver;
}

/**
 * Open the store a `--store` value names: the in-memory engine, PostgreSQL (migrated at start),
 * or an embedded PGlite database in a directory. Bad targets are a `StoreOpenError` with a
 * clear message (no password in it).
 * @example
 * const store = await openStore('postgres://leasehold@127.0.0.1/leasehold', { poolSize: 20 });
 */
export async function openStore(value: string, options: OpenStoreOptions = {}): Promise<Store> {
  const target = parseStoreTarget(value);
  if (target.kind === 'memory') {
    const clock = options.clock === 'manual' ? new ManualClock(options.startTime) : new RealClock();
    return new MemoryStore({ clock, keys: options.keys, random: options.random });
  }
  const driver = await openDriver(target, options);
  try {
    const { SqlStore } = await import('./sql/sql-store.js');
    return await SqlStore.open(driver, {
      clock: options.clock,
      startTime: options.startTime,
      keys: options.keys ?? DEFAULT_KEYS,
      random: options.random,
      sweepIntervalMs: options.sweepIntervalMs,
      credentialCacheMs: options.credentialCacheMs,
    });
  } catch (error) {
    await driver.close().catch(() => {});
    throw error;
  }
}

/**
 * Apply pending migrations to a SQL store and stop (`leasehold-server migrate`); safe to run
 * from several processes at once.
 */
export async function migrateStore(value: string, options: OpenStoreOptions = {}): Promise<MigrationReport> {
  const target = parseStoreTarget(value);
  if (target.kind === 'memory') return { applied: [], current: [] };
  const driver = await openDriver(target, options);
  try {
    const { migrate } = await import('./sql/migrate.js');
    return await migrate(driver);
  } finally {
    await driver.close();
  }
}
