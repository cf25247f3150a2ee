import { createHash, randomBytes } from 'node:crypto';
import { link, mkdir, open, readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { check, checkNumber } from './argument-checks.js';
import type { IdempotencyStore } from './idempotency-store.js';
import { systemWallClock, type WallClock } from './monotonic-clock.js';

/** Options of a {@link FileIdempotencyStore}. */
export interface FileIdempotencyStoreOptions {
  /** The directory holding one file per operation (created if missing, mode 0700). */
  directory: string;
  /** Wall clock judging expiry (expiries survive restarts, so not a monotonic clock). */
  clock?: WallClock | undefined;
  /** Least time between two lazy sweeps of expired entries and debris. Default 10 minutes. */
  pruneIntervalMs?: number | undefined;
  /** Age after which a leftover temp file (a writer killed mid-write) is deleted. Default 60 s. */
  staleTempMs?: number | undefined;
  /** fsync files and the directory so a power cut cannot lose a stored key. Default true. */
  fsync?: boolean | undefined;
}

/** What one entry file holds. */
interface Entry {
  v: 1;
  operationId: string;
  key: string;
  expiresAt: number;
}

const TEMP_PREFIX = '.tmp-';
const ENTRY_SUFFIX = '.json';

/**
 * A crash-safe {@link IdempotencyStore} in a directory, shareable by several processes. Each
 * operation is one file named by the SHA-256 of its id, written whole to a temp file, fsynced,
 * then renamed (or, for `reserve`, hard-linked so an existing entry is never replaced) into place:
 * a reader sees the old entry or the new one, never a torn one, even after `kill -9`. Entries
 * expire after their ttl (24 h by default, like the server's records); expired entries and
 * leftover temp files are swept lazily.
 * @example
 * const store = new FileIdempotencyStore({ directory: '/var/lib/worker/idempotency' });
 */
export class FileIdempotencyStore implements IdempotencyStore {
  /** The store's directory. */
  readonly directory: string;
  readonly #clock: WallClock;
  readonly #pruneIntervalMs: number;
  readonly #staleTempMs: number;
  readonly #fsync: boolean;
  #ready: Promise<void> | undefined;
  #lastPrune = Number.NEGATIVE_INFINITY;

  constructor(options: FileIdempotencyStoreOptions) {
    const owner = 'FileIdempotencyStore';
    check(typeof options === 'object' && options !== null, 'options', 'an object with a directory', options, owner);
    check(typeof options.directory === 'string' && options.directory !== '', 'directory', 'a non-empty path', options.directory, owner);
    checkNumber(options.pruneIntervalMs, 'pruneIntervalMs', 'a non-negative number of milliseconds', (n) => n >= 0, owner);
    checkNumber(options.staleTempMs, 'staleTempMs', 'a non-negative number of milliseconds', (n) => n >= 0, owner);
    this.directory = options.directory;
    this.#clock = options.clock ?? systemWallClock;
    this.#pruneIntervalMs = options.pruneIntervalMs ?? 10 * 60_000;
    this.#staleTempMs = options.staleTempMs ?? 60_000;
    this.#fsync = options.fsync ?? true;
  }

  /** The live key of an operation; a missing, expired or unreadable entry reads as absent. */
  async get(operationId: string): Promise<string | undefined> {
    const entry = await this.#read(operationId);
    return entry !== undefined && entry !== 'invalid' && this.#live(entry) ? entry.key : undefined;
  }

  /** Stores (replacing) the key of an operation; resolves once it is durable. */
  async put(operationId: string, key: string, ttlMs: number): Promise<void> {
    const temp = await this.#writeTemp(operationId, key, ttlMs);
    await this.#commit(temp, this.#file(operationId), 'replace');
    this.#maybePrune();
  }

  /** The live key of an operation, or `candidateKey` once durably stored; racers agree on one key. */
  async reserve(operationId: string, candidateKey: string, ttlMs: number): Promise<string> {
    const file = this.#file(operationId);
    for (let round = 0; round < 8; round++) {
      const existing = await this.#read(operationId);
      if (existing !== undefined && existing !== 'invalid' && this.#live(existing)) return existing.key;
      const temp = await this.#writeTemp(operationId, candidateKey, ttlMs);
      // Absent: link, which fails if another writer got there first. Expired or unreadable: replace.
      const won = await this.#commit(temp, file, existing === undefined ? 'create' : 'replace');
      this.#maybePrune();
      if (won) return candidateKey;
    }
    throw new Error(`Could not reserve an idempotency key for operation ${JSON.stringify(operationId)}.`);
  }

  /** Forgets an operation (no error when absent). */
  async delete(operationId: string): Promise<void> {
    await removeFile(this.#file(operationId));
  }

  /** Deletes expired entries, unreadable entries and temp files older than `staleTempMs`; returns how many. */
  async prune(): Promise<number> {
    this.#lastPrune = this.#clock.now();
    let names: string[];
    try {
      names = await readdir(this.directory);
    } catch (error) {
      if (isCode(error, 'ENOENT')) return 0;
      throw error;
    }
    let removed = 0;
    for (const name of names) {
      const path = join(this.directory, name);
      if (name.startsWith(TEMP_PREFIX)) {
        const info = await ignoreMissing(stat(path));
        if (info && Date.now() - info.mtimeMs >= this.#staleTempMs && (await removeFile(path))) removed++;
      } else if (name.endsWith(ENTRY_SUFFIX)) {
        const entry = await this.#readFile(path);
        if (entry === undefined) continue;
        const stale = entry === 'invalid' ? await this.#isOld(path) : !this.#live(entry);
        if (stale && (await removeFile(path))) removed++;
      }
    }
    return removed;
  }

  /** The file holding an operation's entry. */
  #file(operationId: string): string {
    return join(this.directory, `${createHash('sha256').update(operationId, 'utf8').digest('hex')}${ENTRY_SUFFIX}`);
  }

  #live(entry: Entry): boolean {
    return entry.expiresAt > this.#clock.now();
  }

  async #isOld(path: string): Promise<boolean> {
    const info = await ignoreMissing(stat(path));
    return info !== undefined && Date.now() - info.mtimeMs >= this.#staleTempMs;
  }

  async #read(operationId: string): Promise<Entry | 'invalid' | undefined> {
    const entry = await this.#readFile(this.#file(operationId));
    return entry !== undefined && entry !== 'invalid' && entry.operationId !== operationId ? 'invalid' : entry;
  }

  async #readFile(path: string): Promise<Entry | 'invalid' | undefined> {
    const text = await ignoreMissing(readFile(path, 'utf8'));
    if (text === undefined) return undefined;
    try {
      const value = JSON.parse(text) as Partial<Entry> | null;
      return value !== null && value.v === 1 && typeof value.operationId === 'string' &&
        typeof value.key === 'string' && typeof value.expiresAt === 'number'
        ? (value as Entry)
        : 'invalid';
    } catch {
      return 'invalid';
    }
  }

  async #writeTemp(operationId: string, key: string, ttlMs: number): Promise<string> {
    await this.#ensureDirectory();
    const entry: Entry = { v: 1, operationId, key, expiresAt: this.#clock.now() + ttlMs };
    const temp = join(this.directory, `${TEMP_PREFIX}${process.pid}-${randomBytes(8).toString('hex')}`);
    const handle = await open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(JSON.stringify(entry), 'utf8');
      if (this.#fsync) await handle.sync();
    } catch (error) {
      await handle.close().catch(() => {});
      await removeFile(temp);
      throw error;
    }
    await handle.close();
    return temp;
  }

  /** Moves a complete temp file into place; `create` never replaces. Returns false if `create` lost. */
  async #commit(temp: string, file: string, mode: 'create' | 'replace'): Promise<boolean> {
    try {
      if (mode === 'create') {
        try {
          await link(temp, file);
        } catch (error) {
          if (isCode(error, 'EEXIST')) return false;
          if (!isCode(error, 'EPERM') && !isCode(error, 'ENOTSUP') && !isCode(error, 'ENOSYS')) throw error;
          // A filesystem without hard links: fall back to replace (last writer wins).
          await rename(temp, file);
        }
      } else {
        await rename(temp, file);
      }
      await this.#syncDirectory();
      return true;
    } finally {
      await removeFile(temp);
    }
  }

  async #ensureDirectory(): Promise<void> {
    this.#ready ??= mkdir(this.directory, { recursive: true, mode: 0o700 }).then(() => undefined);
    try {
      await this.#ready;
    } catch (error) {
      this.#ready = undefined;
      throw error;
    }
  }

  async #syncDirectory(): Promise<void> {
    if (!this.#fsync) return;
    try {
      const handle = await open(this.directory, 'r');
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
    } catch {
      // Some platforms cannot fsync a directory; the rename itself is still atomic.
    }
  }

  #maybePrune(): void {
    if (this.#clock.now() - this.#lastPrune < this.#pruneIntervalMs) return;
    this.#lastPrune = this.#clock.now();
    this.prune().catch(() => {});
  }
}

function isCode(error: unknown, code: string): boolean {
  return (error as { code?: unknown } | null)?.code === code;
}

/** Resolves to undefined instead of rejecting when the file is gone. */
async function ignoreMissing<T>(promise: Promise<T>): Promise<T | undefined> {
  try {
    return await promise;
  } catch (error) {
    if (isCode(error, 'ENOENT')) return undefined;
    throw error;
  }
}

/** Deletes a file; false when it was already gone. */
async function removeFile(path: string): Promise<boolean> {
  try {
    await unlink(path);
    return true;
  } catch (error) {
    if (isCode(error, 'ENOENT')) return false;
    throw error;
  }
}
