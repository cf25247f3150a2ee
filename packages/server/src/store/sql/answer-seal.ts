import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 1;
const INFO = 'leasehold idempotency answer v1';

/**
 * Where an idempotency record lives: SHA-256 over the credential and the key (the table never
 * holds the key itself), and the transaction-scoped advisory lock id that marks it in flight.
 */
export function recordAddress(credentialId: string, key: string): { hash: Buffer; lock: string } {
  const hash = createHash('sha256').update(`leasehold idempotency record\n${credentialId}\n${key}`, 'utf8').digest();
  return { hash, lock: hash.readBigInt64BE(0).toString() };
}

function keyOf(credentialId: string, key: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(key, 'utf8'), Buffer.from(credentialId, 'utf8'), INFO, 32));
}

/**
 * Seal a stored answer (it may carry a lease token: an acquire's replay returns it) with
 * AES-256-GCM under a key derived from the Idempotency-Key itself, so a dump of the database
 * hands out no live token: only a caller presenting the same key (and credential) can open it.
 */
export function sealAnswer(credentialId: string, key: string, answer: unknown): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(credentialId, key), iv);
  const body = Buffer.concat([cipher.update(JSON.stringify(answer), 'utf8'), cipher.final()]);
  return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), body]);
}

/** Open a sealed answer (throws when the key does not open it). */
export function openAnswer<A>(credentialId: string, key: string, sealed: Uint8Array): A {
  const data = Buffer.from(sealed);
  if (data[0] !== VERSION) throw new Error('unknown sealed answer version');
  const decipher = createDecipheriv('aes-256-gcm', keyOf(credentialId, key), data.subarray(1, 13));
  decipher.setAuthTag(data.subarray(13, 29));
  const text = Buffer.concat([decipher.update(data.subarray(29)), decipher.final()]).toString('utf8');
  return JSON.parse(text) as A;
}
