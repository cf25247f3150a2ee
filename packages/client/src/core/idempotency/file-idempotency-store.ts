import { createHash, randomBytes } from 'node:crypto';
import { link, lstat, mkdir, open, readdir, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { check, checkNumber } from '../../internal/argument-checks.js';
import { readSnapshot, type Entry } from './entry-file.js';
import type { IdempotencyStore } from './idempotency-store.js';
import { LeaseholdError } from '../errors/leasehold-error.js';
import { systemWallClock, type WallClock } from '../monotonic-clock.js';

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

const TEMP_PREFIX = '.tmp-';
const ENTRY_SUFFIX = '.json';
/** A successor marker: `<hash>.<version>.next`, hard-linked by the one racer allowed to replace that version. */
const MARKER_SUFFIX = '.next';
/** Rounds of a reserve (a round ends early only while a sweep deletes the entry: 1, 2, 4, … ms pauses). */
const RESERVE_ROUNDS = 9;

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A crash-safe {@link IdempotencyStore} in a directory, shareable by several processes. Each
 * operation is one file named by the SHA-256 of its id, written whole to a temp file, fsynced,
 * then renamed into place: a reader sees the old entry or the new one, never a torn one, even
 * after `kill -9`. Racing `reserve()` calls agree on one key whatever is on disk: with no entry,
 * the first hard link wins (`link` never replaces); with a stale one (expired, corrupt,
 * unreadable), the racers that saw that exact file compete for one successor marker
 * (`<hash>.<version>.next`, created by `link`, so exactly one wins) and the losers adopt the
 * winner's key from it; the sweep deletes a stale entry only after winning that same marker, so
 * it never deletes an entry a racer just wrote. Something that is not a file at an entry's path
 * (a directory) is refused. Entries expire after their ttl (24 h by default, like the server's records); expired
 * entries, leftover temp files and old markers are swept lazily, and the sweep goes on past
 * anything it cannot read.
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
    const seen = await readSnapshot(this.#file(operationId));
    return seen.kind === 'entry' && seen.entry.operationId === operationId && this.#live(seen.entry) ? seen.entry.key : undefined;
  }

  /** Stores (replacing) the key of an operation; resolves once it is durable. */
  async put(operationId: string, key: string, ttlMs: number): Promise<void> {
    const file = this.#file(operationId);
    if ((await readSnapshot(file)).kind === 'not-a-file') throw notAFile(file);
    const temp = await this.#writeTemp(operationId, key, ttlMs);
    await this.#commit(temp, file, 'replace');
    this.#maybePrune();
  }

  /**
   * The live key of an operation, or `candidateKey` once durably stored. Processes racing on one
   * operation id agree on one key whatever the entry's state — missing, expired, corrupt or
   * unreadable; something that is not a file at its path is a `LeaseholdError` for every racer.
   */
  async reserve(operationId: string, candidateKey: string, ttlMs: number): Promise<string> {
    const file = this.#file(operationId);
    for (let round = 0; round < RESERVE_ROUNDS; round++) {
      const seen = await readSnapshot(file);
      if (seen.kind === 'not-a-file') throw notAFile(file);
      if (seen.kind === 'entry' && seen.entry.operationId === operationId && this.#live(seen.entry)) return seen.entry.key;
      const temp = await this.#writeTemp(operationId, candidateKey, ttlMs);
      if (seen.kind === 'missing') {
        // Absent: link, which fails if another writer got there first.
        if (await this.#commit(temp, file, 'create')) return this.#reserved(candidateKey);
        continue;
      }
      // Stale: only the one that creates this version's successor marker may replace (or prune) it.
      if (await linkOnce(temp, this.#marker(file, seen.version))) {
        await this.#commit(temp, file, 'replace');
        return this.#reserved(candidateKey);
      }
      await removeFile(temp);
      const winner = await readSnapshot(this.#marker(file, seen.version));
      if (winner.kind === 'entry' && winner.entry.operationId === operationId && this.#live(winner.entry)) return winner.entry.key;
      // A sweep is deleting that version: wait for it to be gone, then race for the empty path.
      await pause(2 ** round);
    }
    throw new LeaseholdError(`Could not reserve an idempotency key for operation ${JSON.stringify(operationId)}.`);
  }

  /** Forgets an operation (no error when absent). */
  async delete(operationId: string): Promise<void> {
    await removeFile(this.#file(operationId));
  }

  /**
   * Deletes expired entries, corrupt entries, temp files and markers older than `staleTempMs`;
   * returns how many. It goes on past anything it cannot read or delete (a directory, another
   * user's file), which it leaves alone.
   */
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
    const markers: string[] = [];
    for (const name of names) {
      try {
        if (await this.#pruneOne(join(this.directory, name), name, markers)) removed++;
      } catch {
        // Not ours to judge (permissions, a file changing under us): leave it, go on.
      }
    }
    // The markers of this sweep's own deletions are debris too, once as old as `staleTempMs`
    // (at once only with 0: until then a reserve that saw the deleted version may still come).
    for (const marker of markers) await this.#pruneOne(marker, MARKER_SUFFIX, []).catch(() => false);
    return removed;
  }

  async #pruneOne(path: string, name: string, markers: string[]): Promise<boolean> {
    if (name.startsWith(TEMP_PREFIX) || name.endsWith(MARKER_SUFFIX)) {
      const info = await ignoreMissing(lstat(path));
      return info !== undefined && info.isFile() && this.#isOld(info.mtimeMs) && removeFile(path);
    }
    if (!name.endsWith(ENTRY_SUFFIX)) return false;
    const seen = await readSnapshot(path);
    let stale: boolean;
    if (seen.kind === 'entry') stale = !this.#live(seen.entry);
    else if (seen.kind === 'invalid') stale = this.#isOld((await ignoreMissing(lstat(path)))?.mtimeMs ?? Date.now());
    else return false; // missing, unreadable (maybe another user's live entry), not a file
    if (!stale) return false;
    // Delete exactly the version judged: win its successor marker first (a racing reserve that
    // saw it then waits), and check it is still the one at the path.
    await this.#ensureDirectory();
    const tombstone = join(this.directory, `${TEMP_PREFIX}${process.pid}-${randomBytes(8).toString('hex')}`);
    await writeFile(tombstone, '{"pruned":true}', { mode: 0o600, flag: 'wx' });
    const marker = this.#marker(path, seen.version);
    try {
      if (!(await linkOnce(tombstone, marker))) return false;
    } finally {
      await removeFile(tombstone);
    }
    markers.push(marker);
    const now = await readSnapshot(path);
    return (now.kind === 'entry' || now.kind === 'invalid') && now.version === seen.version && removeFile(path);
  }

  /** The successor marker of one version of an entry file. */
  #marker(file: string, version: string): string {
    return `${file.slice(0, -ENTRY_SUFFIX.length)}.${version}${MARKER_SUFFIX}`;
  }

  #reserved(key: string): string {
    this.#maybePrune();
    return key;
  }

  /** The file holding an operation's entry. */
  #file(operationId: string): string {
    return join(this.directory, `${createHash('sha256').update(operationId, 'utf8').digest('hex')}${ENTRY_SUFFIX}`);
  }

  #live(entry: Entry): boolean {
    return entry.expiresAt > this.#clock.now();
  }

  #isOld(mtimeMs: number): boolean {
    return Date.now() - mtimeMs >= this.#staleTempMs;
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

/** Creates `link` to `existing` unless something is already there; false when it is. */
async function linkOnce(existing: string, target: string): Promise<boolean> {
  try {
    await link(existing, target);
    return true;
  } catch (error) {
    if (isCode(error, 'EEXIST')) return false;
    throw error;
  }
}

function notAFile(path: string): LeaseholdError {
  return new LeaseholdError(`The idempotency entry ${path} is not a regular file (a directory?); remove it to use this operation id.`);
}
