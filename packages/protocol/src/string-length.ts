/**
 * The one rule for string lengths on the wire: JSON Schema's `minLength` / `maxLength`, counted
 * in Unicode code points (an emoji is one character, not the two UTF-16 units JavaScript's
 * `.length` counts). The server's generated validators and its engine both count this way.
 */

/**
 * How many code points `value` holds.
 * @example
 * codePointLength('😀a'); // 2
 */
export function codePointLength(value: string): number {
  let count = 0;
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    // A high surrogate followed by a low one is one code point.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < value.length) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

/**
 * Whether `value` holds `min`–`max` code points (cheap when `.length` already decides).
 * @example
 * hasCodePointLength('😀'.repeat(200), 1, 200); // true
 */
export function hasCodePointLength(value: string, min: number, max: number): boolean {
  if (value.length < min) return false;
  if (value.length <= max && value.length >= 2 * min) return true;
  const count = codePointLength(value);
  return count >= min && count <= max;
}
