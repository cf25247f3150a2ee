import { base64UrlOf, bytesOfBase64Url, stringOfUtf16le, utf16leBytes } from './bytes.js';
import { EngineError } from './errors.js';

const MAX_KEY_CHARS = 512;
/** A surrogate code unit without its partner: not a Unicode character, so not UTF-8-encodable. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * A claim key a client can address afterwards, else `invalid_request` with `param: "key"`:
 * 1–512 characters (code points), well-formed Unicode (a lone surrogate has no UTF-8 form, so no
 * percent-encoding), and not `.` or `..` (URL parsers resolve those path segments away, even
 * percent-encoded, so `/claims/..` never reaches the key). Every other string is allowed:
 * percent-encoded in a path, it arrives intact.
 */
export function requireKey(value: unknown): string {
  if (typeof value !== 'string' || value.length === 0 || (value.length > MAX_KEY_CHARS && [...value].length > MAX_KEY_CHARS)) {
    throw new EngineError('invalid_request', 'key must be 1–512 characters.', 'key');
  }
  if (value === '.' || value === '..') {
    throw new EngineError('invalid_request', 'key must not be "." or "..": URLs resolve those path segments away, so the key could never be addressed.', 'key');
  }
  if (LONE_SURROGATE.test(value)) {
    throw new EngineError('invalid_request', 'key must be well-formed Unicode: it holds a lone surrogate, which has no UTF-8 form.', 'key');
  }
  return value;
}

/**
 * The order keys are listed in: by Unicode code point, which is the order of their UTF-8 bytes
 * (PostgreSQL's `COLLATE "C"`), not JavaScript's UTF-16 code-unit order (the two differ for
 * characters above U+FFFF against U+E000–U+FFFF). Lone surrogates, which keys never hold, still
 * get a total order (after U+FFFF), so any two strings compare.
 */
export function compareKeys(a: string, b: string): number {
  if (a === b) return 0;
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

/**
 * A key's sort bytes: the code-point rank of each UTF-16 unit, 16-bit big-endian, so byte order
 * is `compareKeys` order (stores that sort in the database, e.g. a `bytea` column, use these).
 */
export function keySortBytes(key: string): Uint8Array {
  const out = new Uint8Array(key.length * 2);
  for (let i = 0; i < key.length; i++) {
    const rank = codePointRank(key.charCodeAt(i));
    out[2 * i] = rank >>> 8;
    out[2 * i + 1] = rank & 0xff;
  }
  return out;
}

/** A UTF-16 unit's rank in code-point order: surrogates (astral characters) after U+E000–U+FFFF. */
function codePointRank(unit: number): number {
  if (unit < 0xd800) return unit;
  return unit < 0xe000 ? unit + 0x2000 : unit - 0x800;
}

/**
 * The opaque list cursor for "after this key": base64url of the key's UTF-16 code units, which
 * keeps every string intact (a UTF-8 encoding would turn a lone surrogate into U+FFFD and skip
 * the keys sorting between the two).
 */
export function encodeCursor(key: string): string {
  return base64UrlOf(utf16leBytes(key));
}

/** The key a cursor stands for, else `invalid_request` with `param: "cursor"`. */
export function decodeCursor(cursor: string): string {
  const bytes = bytesOfBase64Url(cursor);
  const key = bytes.length % 2 === 0 ? stringOfUtf16le(bytes) : '';
  if (key.length === 0 || encodeCursor(key) !== cursor) {
    throw new EngineError('invalid_request', 'cursor is not one this API returned.', 'cursor');
  }
  return key;
}
