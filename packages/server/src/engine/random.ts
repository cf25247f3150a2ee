import { stringOfCodes } from './bytes.js';

/** A source of random bytes for tokens and ids; inject a seeded one to make tests repeatable. */
export interface RandomSource {
  /** Return `length` fresh random bytes. */
  bytes(length: number): Uint8Array;
}

/** Bytes fetched from `crypto.getRandomValues` at a time for small requests (at most 65536 per call). */
const POOL_BYTES = 4096;
let pool: Uint8Array = new Uint8Array(0);
let poolOffset = 0;

/** `length` bytes from the Web Crypto CSPRNG (`globalThis.crypto`: Node ≥ 20, browsers, workers). */
function randomBytes(length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i += 65536) globalThis.crypto.getRandomValues(out.subarray(i, Math.min(length, i + 65536)));
  return out;
}

/**
 * The default source: Web Crypto's `getRandomValues` (cryptographically strong; the same API in
 * Node, browsers and service workers). Small requests are served from 4 KiB fetched at once, as
 * Node's own `randomUUID` does: the same CSPRNG output, without a call per id or token. Each byte is handed out
 * once; callers own (and may change) the bytes they get.
 */
export const cryptoRandom: RandomSource = {
  bytes(length) {
    if (length > POOL_BYTES / 8) return randomBytes(length);
    if (poolOffset + length > pool.length) {
      pool = randomBytes(POOL_BYTES);
      poolOffset = 0;
    }
    const out = pool.subarray(poolOffset, poolOffset + length);
    poolOffset += length;
    return out;
  },
};

/**
 * A deterministic source (SplitMix32 over a 32-bit seed) for tests. Never use it in production:
 * its tokens are guessable.
 * @example
 * const engine = new Engine({ clock, random: seededRandom(42) });
 */
export function seededRandom(seed: number): RandomSource {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
  return {
    bytes(length) {
      const out = new Uint8Array(length);
      for (let i = 0; i < length; i += 4) {
        const word = next();
        for (let j = 0; j < 4 && i + j < length; j++) out[i + j] = (word >>> (8 * j)) & 0xff;
      }
      return out;
    },
  };
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** `length` unbiased base62 characters (rejection sampling, so every character is equally likely). */
export function randomBase62(random: RandomSource, length: number): string {
  const out = new Array<number>(length);
  let filled = 0;
  while (filled < length) {
    for (const byte of random.bytes(length - filled + 8)) {
      if (byte < 248 && filled < length) out[filled++] = BASE62.charCodeAt(byte % 62);
    }
  }
  return stringOfCodes(out); // one flat string, no rope of concatenations
}

/** `length` base64url characters (6 random bits each). */
export function randomBase64Url(random: RandomSource, length: number): string {
  const bytes = random.bytes(length);
  const out = new Array<number>(length);
  for (let i = 0; i < length; i++) out[i] = BASE64URL.charCodeAt((bytes[i] ?? 0) & 63);
  return stringOfCodes(out);
}

/** A random version-4 UUID in lowercase canonical form. */
export function randomUuidV4(random: RandomSource): string {
  const b = random.bytes(16);
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x40;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
