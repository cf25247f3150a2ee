import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

/** The lock file an embedded store keeps in its directory while a process has it open. */
export const LOCK_FILE = 'leasehold.pid';
const RECOVERY_FILE = 'leasehold.pid.recovery';

/** What the lock file records about the process that holds it (JSON, one object). */
export interface LockHolder {
  /** The holder's process id. */
  readonly pid: number;
  /** Its start time in clock ticks since boot (`/proc/<pid>/stat` field 22; `null` off Linux): tells a reused pid apart. */
  readonly startTicks: string | null;
  /** The kernel's boot id (`null` off Linux): a lock from before a reboot is stale whatever its pid. */
  readonly bootId: string | null;
  /** `os.hostname()`: a pid means nothing on another host (or container) sharing the directory. */
  readonly host: string;
  /** When it took the lock (ISO 8601). */
  readonly since: string;
  /** Random: tells this holder's file apart from a later one with the same pid. */
  readonly token: string;
}

/** A lock held by this process; `release()` removes the file (idempotent). */
export interface DataDirLock {
  readonly path: string;
  release(): void;
}

/** The directory is in use (or cannot be judged free): `holder` says by whom. */
export class DataDirLockedError extends Error {
  /** `holder`: what the lock file says, `undefined` when it could not be read. */
  constructor(
    message: string,
    readonly holder: LockHolder | undefined,
  ) {
    super(message);
    this.name = 'DataDirLockedError';
  }
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** `/proc/<pid>/stat` field 22 (after the command name, which may hold spaces and parentheses). */
function startTicks(pid: number): string | null {
  const stat = readText(`/proc/${pid}/stat`);
  if (stat === undefined) return null;
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
}

function bootId(): string | null {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return null;
  }
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function parseHolder(text: string): LockHolder | undefined {
  try {
    const holder = JSON.parse(text) as LockHolder;
    return Number.isInteger(holder.pid) && holder.pid > 0 && typeof holder.host === 'string' && typeof holder.token === 'string' ? holder : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether the process a lock file names still runs: `stale` when the machine rebooted since,
 * the pid is gone, or the pid now belongs to a process that started later (pid reuse); also when
 * it is this process's own pid (an earlier life of a container whose server is pid 1 again, as
 * PostgreSQL reasons — a lock this process really holds is caught before, in `held`). `unknown`
 * for another host: its pid cannot be checked from here.
 */
function standing(holder: LockHolder): 'alive' | 'stale' | 'unknown' {
  if (holder.host !== hostname()) return 'unknown';
  const boot = bootId();
  if (holder.bootId !== null && boot !== null && holder.bootId !== boot) return 'stale';
  if (holder.pid === process.pid || !running(holder.pid)) return 'stale';
  if (holder.startTicks !== null && startTicks(holder.pid) !== holder.startTicks) return 'stale';
  return 'alive';
}

/** Creates `path` holding `text` only if it does not exist: written aside, then hard-linked (atomic; never a half-written lock file). */
function createExclusive(dir: string, path: string, text: string): boolean {
  const aside = join(dir, `${LOCK_FILE}.${process.pid}.${randomBytes(4).toString('hex')}`);
  writeFileSync(aside, text, { mode: 0o600 });
  try {
    linkSync(aside, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkSync(aside);
  }
}

function unlinkIfSame(path: string, text: string): void {
  if (readText(path) === text) unlinkSync(path);
}

/** Directories this process holds (a second open in the same process is refused too). */
const held = new Set<string>();

function lockedMessage(dir: string, holder: LockHolder | undefined, file: string): string {
  if (holder === undefined) return `${file} cannot be read as a lock; if no server uses ${dir}, delete ${file}.`;
  const who = `process ${holder.pid}${holder.host === hostname() ? '' : ` on host ${holder.host}`} (since ${holder.since})`;
  const fix =
    holder.host === hostname()
      ? 'stop it first (one process owns an embedded store; two would grant the same leases twice)'
      : `its pid cannot be checked from ${hostname()}; if no server uses the directory any more, delete ${file}`;
  return `it is in use by ${who}: ${fix}.`;
}

/**
 * Takes `dir`'s exclusive lock, the way PostgreSQL's `postmaster.pid` works: `leasehold.pid` is
 * created only if absent (atomically, complete), names this process (pid, start time, boot id,
 * host), and is removed on `release()` or at process exit. A lock left by a process that died
 * (SIGKILL, a crash, a reboot) is recovered: it is removed only while holding a second file,
 * `leasehold.pid.recovery`, so two processes recovering at once cannot both win. A lock whose
 * holder still runs, or runs on another host, is a `DataDirLockedError` naming the holder.
 * @example
 * const lock = lockDataDir('/var/lib/leasehold'); // … lock.release();
 */
export function lockDataDir(dir: string): DataDirLock {
  if (held.has(dir)) throw new DataDirLockedError(`it is already open in this process (${process.pid}).`, undefined);
  const path = join(dir, LOCK_FILE);
  const recovery = join(dir, RECOVERY_FILE);
  const me: LockHolder = { pid: process.pid, startTicks: startTicks(process.pid), bootId: bootId(), host: hostname(), since: new Date().toISOString(), token: randomBytes(8).toString('hex') };
  const text = `${JSON.stringify(me)}\n`;
  for (let attempt = 0; attempt < 5; attempt++) {
    if (createExclusive(dir, path, text)) {
      held.add(dir);
      const release = () => {
        process.off('exit', release);
        if (!held.delete(dir)) return;
        try {
          unlinkIfSame(path, text);
        } catch {
          // the directory is gone: nothing to release
        }
      };
      process.once('exit', release);
      return { path, release };
    }
    const found = readText(path);
    if (found === undefined) continue; // released meanwhile: try again
    const holder = parseHolder(found);
    if (holder === undefined || standing(holder) !== 'stale') throw new DataDirLockedError(lockedMessage(dir, holder, path), holder);
    // Stale: remove it under the recovery file, and only if it is still the file judged stale.
    if (!createExclusive(dir, recovery, text)) {
      const recoverer = parseHolder(readText(recovery) ?? '');
      if (recoverer !== undefined && standing(recoverer) !== 'stale') {
        throw new DataDirLockedError(`process ${recoverer.pid} is starting on it right now.`, recoverer);
      }
      unlinkIfSame(recovery, readText(recovery) ?? '');
      continue;
    }
    try {
      unlinkIfSame(path, found);
    } finally {
      unlinkSync(recovery);
    }
  }
  throw new DataDirLockedError(`its lock ${path} keeps changing; another process is starting on it.`, undefined);
}
