import { sha256 as sha256Of } from '@noble/hashes/sha2.js';
import { utf8Bytes } from './bytes.js';

/** The SHA-256 digest of a UTF-8 string (synchronous, so a pure JS implementation: Web Crypto's digest is async only). */
export function sha256(text: string): Uint8Array {
  return sha256Of(utf8Bytes(text));
}

/**
 * Compare a presented secret with the real one in constant time: every UTF-16 unit is XORed in,
 * so the time depends only on the length. Lengths are not secret (every token of a kind has the
 * same, documented length), so a presented value of another length is refused at once; for equal
 * lengths nothing about where the characters differ shows through timing. (No hashing: two
 * SHA-256 digests per comparison cost more than the rest of a renew.)
 */
export function safeEqual(presented: string, secret: string): boolean {
  if (presented.length !== secret.length) return false;
  let diff = 0;
  for (let i = 0; i < secret.length; i++) diff |= presented.charCodeAt(i) ^ secret.charCodeAt(i);
  return diff === 0;
}

/** Compare two byte arrays in constant time for a given length (digests: always 32 bytes). */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return diff === 0;
}
