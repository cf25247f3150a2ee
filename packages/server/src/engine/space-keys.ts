import { EngineError } from './errors.js';

const MAX_KEY_CHARS = 512;

/** A claim key of 1–512 characters (code points), else `invalid_request` with `param: "key"`. */
export function requireKey(value: unknown): string {
  if (typeof value !== 'string' || value.length === 0 || (value.length > MAX_KEY_CHARS && [...value].length > MAX_KEY_CHARS)) {
    throw new EngineError('invalid_request', 'key must be 1–512 characters.', 'key');
  }
  return value;
}

/** The opaque list cursor for "after this key": base64url of the key. */
export function encodeCursor(key: string): string {
  return Buffer.from(key, 'utf8').toString('base64url');
}

/** The key a cursor stands for, else `invalid_request` with `param: "cursor"`. */
export function decodeCursor(cursor: string): string {
  const key = Buffer.from(cursor, 'base64url').toString('utf8');
  if (key.length === 0 || encodeCursor(key) !== cursor) {
    throw new EngineError('invalid_request', 'cursor is not one this API returned.', 'cursor');
  }
  return key;
}
