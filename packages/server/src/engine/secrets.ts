import { createHash, timingSafeEqual } from 'node:crypto';

/** The SHA-256 digest of a UTF-8 string. */
export function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * Compare a presented secret with the real one in constant time: `timingSafeEqual` over their
 * UTF-8 bytes, whose time depends only on the length. Lengths are not secret (every token of a
 * kind has the same, documented length), so a presented value of another length is refused at
 * once; for equal lengths nothing about where the bytes differ shows through timing. (No hashing:
 * two SHA-256 digests per comparison cost more than the rest of a renew.)
 */
export function safeEqual(presented: string, secret: string): boolean {
  if (presented.length !== secret.length) return false;
  const a = Buffer.from(presented, 'utf8');
  const b = Buffer.from(secret, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}
