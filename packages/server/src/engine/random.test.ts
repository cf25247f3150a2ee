import { describe, expect, it } from 'vitest';
import { cryptoRandom, randomBase62, randomBase64Url, randomUuidV4, seededRandom } from './random.js';

describe('random sources', () => {
  it('seeded sources repeat, different seeds differ', () => {
    expect(seededRandom(7).bytes(32)).toEqual(seededRandom(7).bytes(32));
    expect(seededRandom(7).bytes(32)).not.toEqual(seededRandom(8).bytes(32));
  });

  it('crypto source gives the requested length', () => {
    expect(cryptoRandom.bytes(24)).toHaveLength(24);
    expect(cryptoRandom.bytes(0)).toHaveLength(0);
    expect(cryptoRandom.bytes(5000)).toHaveLength(5000);
  });

  it('crypto source never hands out the same bytes twice, across pool refills', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) seen.add(Buffer.from(cryptoRandom.bytes(32)).toString('hex'));
    expect(seen.size).toBe(2000);
    const a = cryptoRandom.bytes(16);
    const copy = Buffer.from(a);
    cryptoRandom.bytes(16)[0] = 0; // a caller changing its bytes leaves everyone else's alone
    expect(Buffer.from(a)).toEqual(copy);
  });

  it.each([
    ['base62', (n: number) => randomBase62(seededRandom(1), n), /^[0-9A-Za-z]{40}$/],
    ['base64url', (n: number) => randomBase64Url(seededRandom(1), n), /^[A-Za-z0-9_-]{40}$/],
  ])('%s has the right alphabet and length', (_name, make, pattern) => {
    expect(make(40)).toMatch(pattern);
  });

  it('makes version-4 UUIDs', () => {
    const random = seededRandom(3);
    for (let i = 0; i < 50; i++) {
      expect(randomUuidV4(random)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
  });
});
