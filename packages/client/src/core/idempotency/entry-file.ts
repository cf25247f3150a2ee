import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { LeaseholdError } from '../errors/leasehold-error.js';

/** What one entry file of a `FileIdempotencyStore` holds. */
export interface Entry {
  v: 1;
  operationId: string;
  key: string;
  expiresAt: number;
}

/**
 * What is at an entry's path, read once and consistently (content and identity from one open
 * file): nothing; an entry; an entry file that is corrupt, torn, of another shape or another
 * operation (`invalid`); a file this process may not read (`unreadable`); or something that is
 * not a regular file at all (a directory, a FIFO). `version` identifies the exact file seen —
 * its content, inode and modification time — so racers that saw the same stale file agree on it.
 */
export type Snapshot =
  | { kind: 'missing' }
  | { kind: 'entry'; entry: Entry; version: string }
  | { kind: 'invalid'; version: string }
  | { kind: 'unreadable'; version: string }
  | { kind: 'not-a-file' };

/** Errors that mean "this process may not read it". */
const DENIED = new Set(['EACCES', 'EPERM']);

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
}

function versionOf(parts: Array<string | bigint | number>): string {
  return createHash('sha256').update(parts.join('\0'), 'utf8').digest('hex').slice(0, 32);
}

/** Parses an entry file's text (`undefined`: not an entry). */
export function parseEntry(text: string): Entry | undefined {
  try {
    const value = JSON.parse(text) as Partial<Entry> | null;
    return value !== null &&
      typeof value === 'object' &&
      value.v === 1 &&
      typeof value.operationId === 'string' &&
      typeof value.key === 'string' &&
      typeof value.expiresAt === 'number' &&
      Number.isFinite(value.expiresAt)
      ? (value as Entry)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Reads what is at `path`, never blocking (a FIFO is opened non-blocking and reported as not a
 * file) and never throwing for what is there: only an I/O failure of the directory itself throws.
 */
export async function readSnapshot(path: string, attempt = 0): Promise<Snapshot> {
  let handle;
  try {
    handle = await openEntry(path);
  } catch (error) {
    const code = codeOf(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing' };
    if (code === 'EISDIR') return { kind: 'not-a-file' };
    if (!DENIED.has(code)) throw error;
    return readUnreadable(path, attempt);
  }
  try {
    const info = await handle.stat({ bigint: true });
    if (!info.isFile()) return { kind: 'not-a-file' };
    let text: string;
    try {
      text = await handle.readFile('utf8');
    } catch (error) {
      if (DENIED.has(codeOf(error)) || codeOf(error) === 'EISDIR') return { kind: 'unreadable', version: versionOf(['unreadable', info.dev, info.ino, info.mtimeNs, info.size]) };
      throw error;
    }
    const version = versionOf([info.dev, info.ino, info.mtimeNs, info.size, text]);
    const entry = parseEntry(text);
    return entry === undefined ? { kind: 'invalid', version } : { kind: 'entry', entry, version };
  } finally {
    await handle.close().catch(() => {});
  }
}

function openEntry(path: string) {
  return open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
}

/**
 * The identity of a file this process may not open — checked twice around a second open, so it
 * is the identity of that very file and not of one that replaced it meanwhile (which may well
 * be readable: then the snapshot starts over).
 */
async function readUnreadable(path: string, attempt: number): Promise<Snapshot> {
  const identity = async (): Promise<string | 'missing' | 'not-a-file'> => {
    try {
      const info = await stat(path, { bigint: true });
      return info.isFile() ? versionOf(['unreadable', info.dev, info.ino, info.mtimeNs, info.size]) : 'not-a-file';
    } catch (error) {
      if (codeOf(error) === 'ENOENT') return 'missing';
      throw error;
    }
  };
  const before = await identity();
  if (before === 'missing') return { kind: 'missing' };
  if (before === 'not-a-file') return { kind: 'not-a-file' };
  let denied = false;
  try {
    await (await openEntry(path)).close();
  } catch (error) {
    if (!DENIED.has(codeOf(error)) && codeOf(error) !== 'ENOENT') throw error;
    denied = DENIED.has(codeOf(error));
  }
  if (denied && (await identity()) === before) return { kind: 'unreadable', version: before };
  if (attempt >= 8) throw new LeaseholdError(`The idempotency entry ${path} keeps changing while it is read.`);
  return readSnapshot(path, attempt + 1);
}
