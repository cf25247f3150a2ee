/**
 * Byte and text helpers over Web APIs only (`TextEncoder`, `btoa`/`atob`, typed arrays), so the
 * engine runs unchanged in Node, a browser page and a service worker: no `Buffer` here.
 */

const encoder = new TextEncoder();

/** The UTF-8 bytes of a string. */
export function utf8Bytes(text: string): Uint8Array {
  return encoder.encode(text);
}

/** How many bytes a string takes in UTF-8 (lone surrogates count as U+FFFD, 3 bytes), without encoding it. */
export function utf8Length(text: string): number {
  let length = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) length += 1;
    else if (unit < 0x800) length += 2;
    else if (unit >= 0xd800 && unit < 0xdc00 && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      length += 4;
      i++;
    } else length += 3;
  }
  return length;
}

/** The string of these UTF-16 code units (bytes are latin1 characters), flat for short inputs. */
export function stringOfCodes(bytes: ArrayLike<number>): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 4096) {
    out += String.fromCharCode.apply(null, Array.prototype.slice.call(bytes, i, i + 4096) as number[]);
  }
  return out;
}

/** Unpadded base64url of some bytes (RFC 4648 §5). */
export function base64UrlOf(bytes: Uint8Array): string {
  return btoa(stringOfCodes(bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The bytes of a base64url text; malformed text gives an empty array (callers re-encode and compare). */
export function bytesOfBase64Url(text: string): Uint8Array {
  try {
    const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
    const out = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
    return out;
  } catch {
    return new Uint8Array(0);
  }
}

/** The UTF-16LE bytes of a string (every code unit kept, lone surrogates too). */
export function utf16leBytes(text: string): Uint8Array {
  const out = new Uint8Array(text.length * 2);
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    out[2 * i] = unit & 0xff;
    out[2 * i + 1] = unit >>> 8;
  }
  return out;
}

/** The string whose UTF-16LE bytes these are (an even number of bytes). */
export function stringOfUtf16le(bytes: Uint8Array): string {
  const units = new Uint16Array(bytes.length >>> 1);
  for (let i = 0; i < units.length; i++) units[i] = (bytes[2 * i] ?? 0) | ((bytes[2 * i + 1] ?? 0) << 8);
  return stringOfCodes(units);
}

/** Lowercase hex of some bytes. */
export function hexOf(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) out += (byte < 16 ? '0' : '') + byte.toString(16);
  return out;
}

/** Copy a concatenated (rope) string into one flat string, for values kept for a long time. */
export function flatString(text: string): string {
  const codes = new Array<number>(text.length);
  for (let i = 0; i < text.length; i++) codes[i] = text.charCodeAt(i);
  return stringOfCodes(codes);
}
