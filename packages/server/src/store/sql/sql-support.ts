import { createHash } from 'node:crypto';
import type { RandomSource } from '../../engine/index.js';
import type { SqlSession } from './driver.js';
import { keySortBytes } from '../../engine/space-keys.js';
import type { SingleStatement } from './single-statement.js';

/** What every SQL operation of one unit works with: its session, the random source, the one-statement path. */
export interface UnitContext {
  /** The unit's session: the first statement opens its transaction. */
  readonly tx: SqlSession;
  /** Randomness for ids and tokens. */
  readonly random: RandomSource;
  /**
   * Run a one-statement operation: one round trip, idempotency included, when it is the
   * unit's first and only statement (`OperationUnit.single`); its row, or a replayed one.
   */
  single<T>(call: SingleStatement): Promise<T | undefined>;
}

/** How long a lost or released lease (and a free key's last release) is remembered: 10 minutes. */
export const TOMBSTONE_MS = 10 * 60 * 1000;

/** The SHA-256 digest of a secret (tokens are stored only as digests). */
export function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** A key's sort key: the engine's code-point order as bytes (`keySortBytes`), so `bytea` order is list order. */
export function sortKeyOf(key: string): Buffer {
  const bytes = keySortBytes(key);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The smallest byte string above every string that starts with `prefix`, or `null` for none. */
export function prefixUpperBound(prefix: Buffer): Buffer | null {
  const bound = Buffer.from(prefix);
  for (let i = bound.length - 1; i >= 0; i--) {
    if ((bound[i] as number) < 0xff) {
      bound[i] = (bound[i] as number) + 1;
      return bound.subarray(0, i + 1);
    }
  }
  return null;
}

/** A JSON value as the `text` the store keeps (exactly as it will be read back). */
export function jsonText(value: unknown): string {
  return JSON.stringify(value ?? null);
}

/** A `text` column holding JSON, parsed (`null` for SQL NULL). */
export function parseJson<T = unknown>(text: string | null | undefined): T | null {
  return text === null || text === undefined ? null : (JSON.parse(text) as T);
}

/** The database's time now (epoch ms, manual offset included): one statement. */
export async function clockNow(tx: SqlSession): Promise<number> {
  const { rows } = await tx.query<{ now: number }>('SELECT leasehold.now_ms() AS now');
  return (rows[0] as { now: number }).now;
}

/** The first row of a result, which the statement always returns. */
export function one<T>(rows: T[]): T {
  const row = rows[0];
  if (row === undefined) throw new Error('statement answered no row');
  return row;
}
