import { describe, expect, it } from 'vitest';
import { safeEqual } from './secrets.js';
import { claimIdOfToken, tokenMatches } from './lease-tokens.js';

describe('safeEqual', () => {
  it('is true only for the same string', () => {
    const token = 'lht_Bj7q8ak0xeFFxyaT_abcdefghijklmnopqrstuvwxyz012345';
    expect(safeEqual(token, token)).toBe(true);
    expect(safeEqual(`${token}`.slice(0), token)).toBe(true);
    expect(safeEqual(`${token.slice(0, -1)}6`, token)).toBe(false);
    expect(safeEqual(`x${token.slice(1)}`, token)).toBe(false);
  });

  it('refuses other lengths, in code units and in UTF-8 bytes', () => {
    expect(safeEqual('abc', 'abcd')).toBe(false);
    expect(safeEqual('', 'a')).toBe(false);
    expect(safeEqual('', '')).toBe(true);
    // Same number of UTF-16 code units, more UTF-8 bytes: never equal to an ASCII secret.
    expect(safeEqual('ab\u00e9', 'abc')).toBe(false);
    expect(safeEqual('\u00e9', '\u00e9')).toBe(true);
  });

  it('backs tokenMatches', () => {
    expect(tokenMatches('lht_A_secret', 'lht_A_secret')).toBe(true);
    expect(tokenMatches('lht_A_secreT', 'lht_A_secret')).toBe(false);
  });
});

describe('claimIdOfToken', () => {
  it('reads the claim id of a minted token and refuses other shapes', () => {
    expect(claimIdOfToken('lht_', 'lht_Bj7q8ak0xeFFxyaT_secret')).toBe('clm_Bj7q8ak0xeFFxyaT');
    expect(claimIdOfToken('sl_', 'sl_abc_secret')).toBe('clm_abc');
    expect(claimIdOfToken('lht_', 'lht__secret')).toBeUndefined();
    expect(claimIdOfToken('lht_', 'lht_nosecret')).toBeUndefined();
    expect(claimIdOfToken('lht_', 'sl_abc_secret')).toBeUndefined();
    expect(claimIdOfToken('lht_', 'lht_a-b_secret')).toBeUndefined();
  });
});
