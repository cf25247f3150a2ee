import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlDriver } from '../driver.js';
import { createPgliteDriver } from './pglite-driver.js';
import { inlineParams, sqlLiteral } from './sql-literals.js';

// The embedded driver sends parameters as literals: every value must come back exactly as it went in.
const HOSTILE = [
  '',
  "it's",
  "''; DROP TABLE leasehold.leases; --",
  'back\\slash \\x00 \\\\',
  '$1 $2 $$ $tag$ body $tag$',
  'line\nbreak\ttab\r',
  'ünïcødé ✓ 漢字 🦀 𝕏',
  '"double" {braces} (parens) [brackets], commas',
  'NULL',
];

let driver: SqlDriver;
// Opening PGlite compiles its WebAssembly: measured 18–55 s on this 2-core machine while other suites ran.
beforeAll(async () => {
  driver = await createPgliteDriver();
}, 120_000);
afterAll(() => driver?.close());

describe('parameters as literals (PGlite)', () => {
  it.each(HOSTILE.map((text) => [JSON.stringify(text), text]))('a string %s round-trips', async (_name, text) => {
    const { rows } = await driver.query<{ v: string; n: number }>('SELECT $1::text AS v, length($1::text) AS n', [text]);
    expect(rows[0]).toEqual({ v: text, n: [...text].length });
  });

  it('arrays of hostile strings, NULL elements and numbers round-trip', async () => {
    const { rows } = await driver.query<{ t: (string | null)[]; b: number[] }>('SELECT $1::text[] AS t, $2::bigint[] AS b', [
      [...HOSTILE, null],
      [0, 1, 2 ** 52, -7],
    ]);
    expect(rows[0]).toEqual({ t: [...HOSTILE, null], b: [0, 1, 2 ** 52, -7] });
  });

  it('bytes, numbers, booleans and NULL keep their values', async () => {
    const bytes = Buffer.from([0, 1, 0x27, 0x5c, 0xff]);
    const { rows } = await driver.query<{ b: Uint8Array; i: number; f: number; t: boolean; f2: boolean; z: null }>(
      'SELECT $1::bytea AS b, $2::bigint AS i, $3::float8 AS f, $4::boolean AS t, $5::boolean AS f2, $6::text AS z',
      [bytes, 1_796_141_028_934, 0.25, true, false, null],
    );
    expect(rows[0]).toEqual({ b: new Uint8Array(bytes), i: 1_796_141_028_934, f: 0.25, t: true, f2: false, z: null });
  });

  it('a literal means the same whatever standard_conforming_strings says (the scripts sent with BEGIN and COMMIT use it too)', async () => {
    const bytes = Buffer.from([0x5c, 0x27, 0, 0xff]);
    const select = `SELECT ARRAY[${HOSTILE.map((text) => `${sqlLiteral(text)}::text`).join(', ')}] AS t, ${sqlLiteral(bytes)}::bytea AS b, ${sqlLiteral([...HOSTILE, null])}::text[] AS a`;
    for (const setting of ['off', 'on']) {
      const { tx } = await driver.begin(`SET LOCAL standard_conforming_strings = ${setting}`);
      const { rows } = await tx.query<{ t: string[]; b: Uint8Array; a: (string | null)[] }>(select);
      await tx.rollback();
      expect(rows[0], setting).toEqual({ t: HOSTILE, b: new Uint8Array(bytes), a: [...HOSTILE, null] });
    }
    expect(sqlLiteral("it's")).toBe("'it''s'");
    expect(sqlLiteral('a\\b')).toBe("E'a\\\\b'");
  });

  it('a statement the database cannot prepare still runs, inlined', async () => {
    const { rows } = await driver.query<{ v: string }>('SELECT $1 AS v', ["o'k"]);
    expect(rows[0]?.v).toBe("o'k");
  });

  it('a failed statement inside a transaction leaves the transaction usable only as PostgreSQL would', async () => {
    const { tx } = await driver.begin();
    await expect(tx.query('SELECT $1::int AS v', ['not a number'])).rejects.toMatchObject({ code: '22P02' });
    await tx.rollback();
    const { rows } = await driver.query<{ v: number }>('SELECT $1::int AS v', [5]);
    expect(rows[0]?.v).toBe(5);
  });
});

describe('inlineParams', () => {
  it.each([
    ['SELECT $1, $2', ['a', 2], "SELECT 'a', '2'"],
    ["SELECT '$1', $1", ['x'], "SELECT '$1', 'x'"],
    ['SELECT "$1", $10', Array.from({ length: 10 }, (_, i) => i + 1), `SELECT "$1", '10'`],
    ['SELECT $$ $1 $$, $1', ['y'], "SELECT $$ $1 $$, 'y'"],
  ] as const)('%s', (text, params, want) => {
    expect(inlineParams(text, params)).toBe(want);
  });

  it('refuses NUL, non-finite numbers, objects and missing parameters', () => {
    expect(() => sqlLiteral('a\0b')).toThrow(RangeError);
    expect(() => sqlLiteral(Number.NaN)).toThrow(RangeError);
    expect(() => sqlLiteral({ a: 1 })).toThrow(TypeError);
    expect(() => inlineParams('SELECT $2', ['only one'])).toThrow(RangeError);
  });
});
