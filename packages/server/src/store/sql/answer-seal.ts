import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';

/** A sealed answer's first byte: its JSON as is (1), or compressed with Brotli before sealing (2). */
const VERSION = 1;
const COMPRESSED = 2;
/**
 * Answers whose `body` has at least this many characters are compressed before they are sealed (ciphertext
 * does not compress, so PostgreSQL cannot do it afterwards): a heartbeat of 10,000 leases is
 * ~1.0 MB of JSON, 138 KB with Brotli at quality 1 in ~1.3 ms (zlib's deflate at level 1: 142 KB
 * in ~2.2 ms). Smaller answers — a renew, an acquire — stay version 1, which every build opens.
 */
const COMPRESS_FROM_CHARS = 4096;
const BROTLI = { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } };
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
  const body = bodyOf(answer);
  const compress = body !== undefined && body.length >= COMPRESS_FROM_CHARS;
  // Version 2 keeps a string `body` (an answer's JSON already) out of the JSON around it: the
  // answer's other fields as one JSON line (`body` a placeholder, so the fields keep their
  // order), a newline, then the body as it is — not escaped into a string of a string and back.
  const plain = compress
    ? brotliCompressSync(Buffer.from(`${JSON.stringify({ ...(answer as object), body: 0 })}\n${body}`, 'utf8'), BROTLI)
    : Buffer.from(JSON.stringify(answer), 'utf8');
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(credentialId, key), iv);
  const sealed = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([Buffer.from([compress ? COMPRESSED : VERSION]), iv, cipher.getAuthTag(), sealed]);
}

/** Open a sealed answer (throws when the key does not open it). */
export function openAnswer<A>(credentialId: string, key: string, sealed: Uint8Array): A {
  const data = Buffer.from(sealed);
  if (data[0] !== VERSION && data[0] !== COMPRESSED) throw new Error('unknown sealed answer version');
  const decipher = createDecipheriv('aes-256-gcm', keyOf(credentialId, key), data.subarray(1, 13));
  decipher.setAuthTag(data.subarray(13, 29));
  const plain = Buffer.concat([decipher.update(data.subarray(29)), decipher.final()]);
  if (data[0] === VERSION) return JSON.parse(plain.toString('utf8')) as A;
  const text = brotliDecompressSync(plain).toString('utf8');
  const end = text.indexOf('\n');
  const answer = JSON.parse(text.slice(0, end)) as { body: string };
  answer.body = text.slice(end + 1);
  return answer as A;
}

/** The answer's `body` when it is a string (a `StoredAnswer`'s serialized JSON). */
function bodyOf(answer: unknown): string | undefined {
  if (typeof answer !== 'object' || answer === null || !('body' in answer)) return undefined;
  return typeof answer.body === 'string' ? answer.body : undefined;
}
