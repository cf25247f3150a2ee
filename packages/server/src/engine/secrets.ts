import { createHash, timingSafeEqual } from 'node:crypto';

/** The SHA-256 digest of a UTF-8 string. */
export function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** Compare two secrets in constant time (over their SHA-256 digests, so lengths may differ). */
export function safeEqual(a: string, b: string): boolean {
  return timingSafeEqual(sha256(a), sha256(b));
}
