import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareKeys, decodeCursor, encodeCursor, requireKey } from './space-keys.js';
import { RUN_A, SPACE, codeOf, setup } from './test-fixtures.js';

/** Any UTF-16 code unit: lone surrogates, U+FFFD, the private use area, everything. */
const anyUnit = fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit));
const anyString = fc.string({ unit: anyUnit, minLength: 1, maxLength: 12 });

/** Well-formed characters where the orders differ: ASCII, U+E000–U+FFFF, astral, U+FFFD. */
const keyChar = fc.oneof(
  fc.constantFrom('a', 'b', '/', '.', '%', '?', '#', ' ', '\u0000', '\uE000', '\uFFFD', '\uFFFF', '😀', '\u{10000}', '\u{10FFFF}'),
  fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  fc.integer({ min: 0xe000, max: 0xffff }).map((c) => String.fromCharCode(c)),
  fc.integer({ min: 0x10000, max: 0x10ffff }).map((c) => String.fromCodePoint(c)),
);
const key = fc.string({ unit: keyChar, minLength: 1, maxLength: 6 }).filter((k) => k !== '.' && k !== '..');

const utf8Order = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

describe('the claim-list cursor', () => {
  it('names exactly the key it was made from, for any string (lone surrogates included)', () => {
    fc.assert(
      fc.property(anyString, (k) => {
        expect(decodeCursor(encodeCursor(k))).toBe(k);
      }),
      { numRuns: 2000 },
    );
    // The old cursor (base64url of UTF-8) turned a lone surrogate into U+FFFD, so a page after
    // "k\uD800" restarted after "k\uFFFD" and skipped every key in between.
    expect(decodeCursor(encodeCursor('k\uD800'))).toBe('k\uD800');
  });

  it('refuses cursors it did not make', () => {
    for (const bad of ['', '!!', 'YQ', 'Zm9v=', 'AAAA']) expect(codeOf(() => decodeCursor(bad)), bad).toBe('invalid_request');
  });

  it('orders well-formed keys by code point (their UTF-8 bytes), and any two strings totally', () => {
    fc.assert(
      fc.property(key, key, (a, b) => {
        expect(Math.sign(compareKeys(a, b))).toBe(Math.sign(utf8Order(a, b)));
      }),
      { numRuns: 3000 },
    );
    fc.assert(
      fc.property(anyString, anyString, anyString, (a, b, c) => {
        // Antisymmetric: the two signs cancel (a sum, so an equal pair's 0 and -0 compare equal).
        expect(Math.sign(compareKeys(a, b)) + Math.sign(compareKeys(b, a))).toBe(0);
        if (compareKeys(a, b) <= 0 && compareKeys(b, c) <= 0) expect(compareKeys(a, c)).toBeLessThanOrEqual(0);
        expect(compareKeys(a, b) === 0).toBe(a === b);
      }),
      { numRuns: 3000 },
    );
  });

  it('walks every held key exactly once, in code-point order, while other keys come and go between pages', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(key, { minLength: 1, maxLength: 30 }),
        fc.uniqueArray(key, { maxLength: 10 }),
        fc.integer({ min: 1, max: 7 }),
        fc.array(fc.tuple(fc.boolean(), fc.nat()), { maxLength: 20 }),
        (stable, churn, limit, moves) => {
          const f = setup();
          const churning = churn.filter((k) => !stable.includes(k));
          const acquire = (k: string) =>
            f.engine.claims.acquire({ credential: f.admin, spaceId: SPACE, key: k, scopeId: RUN_A, holder: 'w', holderSession: 's' });
          for (const k of stable) acquire(k);
          const tokens = new Map<string, string>();
          const listed: string[] = [];
          let cursor: string | undefined;
          let page = 0;
          do {
            const answer = f.engine.claims.list({ credential: f.admin, spaceId: SPACE, limit, cursor });
            listed.push(...answer.data.map((claim) => claim.key));
            cursor = answer.nextCursor ?? undefined;
            // Between pages, a churning key is acquired or released.
            const [take, pick] = moves[page++] ?? [false, 0];
            const k = churning[pick % Math.max(1, churning.length)];
            if (k !== undefined) {
              if (take && !tokens.has(k)) tokens.set(k, acquire(k).token as string);
              else if (!take && tokens.has(k)) {
                f.engine.claims.release({ credential: f.admin, spaceId: SPACE, key: k, token: tokens.get(k) as string });
                tokens.delete(k);
              }
            }
          } while (cursor !== undefined);
          expect(new Set(listed).size, 'no key listed twice').toBe(listed.length);
          for (let i = 1; i < listed.length; i++) expect(utf8Order(listed[i - 1]!, listed[i]!)).toBeLessThan(0);
          for (const k of stable) expect(listed, 'a key held throughout is listed').toContain(k);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('addressable keys', () => {
  it('refuses at acquire what no URL can address: ".", ".." and lone surrogates', () => {
    for (const bad of ['.', '..', 'a\uD800', '\uDC00b', 'x\uDBFF\uDBFF']) expect(codeOf(() => requireKey(bad)), JSON.stringify(bad)).toBe('invalid_request');
    for (const good of ['...', '.a', 'a.', './a', '%2e', '%2E%2E', '😀', '\u{10FFFF}', 'a/../b']) expect(requireKey(good)).toBe(good);
  });
});
