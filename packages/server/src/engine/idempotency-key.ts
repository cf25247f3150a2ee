import { sha256 } from '@noble/hashes/sha2.js';
import { hexOf, utf8Bytes } from './bytes.js';
import { EngineError } from './errors.js';

const QUOTED = /^"((?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*)"$/;
const PRINTABLE = /^[\x20-\x7e]{1,255}$/;

/**
 * Normalize an `Idempotency-Key` header: 1–255 printable ASCII characters, or the IETF draft's
 * quoted structured-field form (`"abc"`, with `\"` and `\\` escapes), which means the same key.
 * Anything else is `invalid_idempotency_key` with `param: "Idempotency-Key"`.
 * @example
 * normalizeIdempotencyKey('"abc"'); // 'abc'
 */
export function normalizeIdempotencyKey(raw: unknown): string {
  let key = typeof raw === 'string' ? raw : '';
  const quoted = QUOTED.exec(key);
  if (quoted) key = (quoted[1] ?? '').replace(/\\(["\\])/g, '$1');
  if (!PRINTABLE.test(key)) {
    throw new EngineError(
      'invalid_idempotency_key',
      'Idempotency-Key must be 1–255 printable ASCII characters.',
      'Idempotency-Key',
    );
  }
  return key;
}

/** The fingerprint of a request for idempotency: SHA-256 over method, path and raw body. */
export function requestFingerprint(method: string, path: string, body?: string | Uint8Array | null): string {
  const hash = sha256.create();
  hash.update(utf8Bytes(`${method.toUpperCase()}\n${path}\n`));
  if (body !== undefined && body !== null) hash.update(typeof body === 'string' ? utf8Bytes(body) : body);
  return hexOf(hash.digest());
}
