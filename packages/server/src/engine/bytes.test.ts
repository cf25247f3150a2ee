import { describe, expect, it } from 'vitest';
import { base64UrlOf, bytesOfBase64Url, flatString, hexOf, stringOfUtf16le, utf16leBytes, utf8Bytes, utf8Length } from './bytes.js';
import { bytesEqual, safeEqual, sha256 } from './secrets.js';

// The Web-API helpers answer exactly what the `Buffer` calls they replaced answered.
const SAMPLES = ['', 'a', 'task:42', 'reports/2026-11', 'é', '€uro', '😀 smile', 'lone \ud800 surrogate', 'x'.repeat(5000)];

describe('engine bytes helpers (no Buffer)', () => {
  it('encode UTF-8 and count its bytes as Buffer does', () => {
    for (const text of SAMPLES) {
      expect(Buffer.from(utf8Bytes(text)).equals(Buffer.from(text, 'utf8'))).toBe(true);
      expect(utf8Length(text)).toBe(Buffer.byteLength(text, 'utf8'));
    }
  });

  it('round-trip base64url and UTF-16LE as Buffer does', () => {
    for (const text of SAMPLES) {
      const bytes = utf16leBytes(text);
      expect(Buffer.from(bytes).equals(Buffer.from(text, 'utf16le'))).toBe(true);
      expect(base64UrlOf(bytes)).toBe(Buffer.from(text, 'utf16le').toString('base64url'));
      expect(stringOfUtf16le(bytesOfBase64Url(base64UrlOf(bytes)))).toBe(text);
    }
  });

  it('decode malformed base64url to no bytes instead of throwing', () => {
    expect(bytesOfBase64Url('a')).toEqual(new Uint8Array(0));
    expect(bytesOfBase64Url('!!!!')).toEqual(new Uint8Array(0));
  });

  it('hash with SHA-256 and compare in constant time', () => {
    expect(hexOf(sha256('lh_test_admin'))).toBe(Buffer.from(sha256('lh_test_admin')).toString('hex'));
    expect(hexOf(sha256('abc'))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(bytesEqual(sha256('a'), sha256('a'))).toBe(true);
    expect(bytesEqual(sha256('a'), sha256('b'))).toBe(false);
    expect(safeEqual('lht_abc', 'lht_abc')).toBe(true);
    expect(safeEqual('lht_abd', 'lht_abc')).toBe(false);
    expect(safeEqual('lht_ab', 'lht_abc')).toBe(false);
  });

  it('flattens a concatenated string without changing it', () => {
    const rope = `${'lht_'}${'x'.repeat(16)}_${'y'.repeat(32)}`;
    expect(flatString(rope)).toBe(rope);
  });
});
