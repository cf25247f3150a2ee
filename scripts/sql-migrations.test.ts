import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FUNCTIONS_DIR, MIGRATIONS_DIR, migrationOutputs, readMigrations, splitStatements } from './sql-migrations.mjs';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** A scratch repository holding exactly these migration files. */
function repo(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'lh-migrations-'));
  roots.push(root);
  mkdirSync(join(root, MIGRATIONS_DIR), { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(root, MIGRATIONS_DIR, name), text);
  return root;
}

const BASE = `-- kind: contract
--
-- The first schema.

CREATE TABLE leasehold.things (id bigint PRIMARY KEY, name text NOT NULL);
-- How many things.
CREATE FUNCTION leasehold.count_things() RETURNS bigint LANGUAGE sql AS $$ SELECT count(*) FROM leasehold.things $$;
`;
const expand = (sql: string, header = '') => `-- kind: expand\n${header}--\n-- A change.\n\n${sql}\n`;

describe('migration files: what the check refuses', () => {
  it.each([
    ['a dropped column', 'ALTER TABLE leasehold.things DROP COLUMN name;', /drops what an older build may use/],
    ['a dropped table', 'DROP TABLE leasehold.things;', /drops what an older build may use/],
    ['a rename', 'ALTER TABLE leasehold.things RENAME COLUMN name TO title;', /renames/],
    ['a type change', 'ALTER TABLE leasehold.things ALTER COLUMN name TYPE varchar(10);', /changes a column type/],
    ['SET NOT NULL', 'ALTER TABLE leasehold.things ALTER COLUMN name SET NOT NULL;', /tightens/],
    ['a new constraint', 'ALTER TABLE leasehold.things ADD CONSTRAINT short CHECK (length(name) < 9);', /adds a constraint/],
    ['a NOT NULL column without DEFAULT', 'ALTER TABLE leasehold.things ADD COLUMN size int NOT NULL;', /NOT NULL column without a DEFAULT/],
    ['a unique index', 'CREATE UNIQUE INDEX things_name ON leasehold.things (name);', /uniqueness/],
    ['a delete', 'DELETE FROM leasehold.things;', /deletes rows/],
    ['a function redefined in place, undeclared', 'CREATE OR REPLACE FUNCTION leasehold.count_things() RETURNS bigint LANGUAGE sql AS $$ SELECT 0::bigint $$;', /redefines count_things in place/],
    ['an overload', 'CREATE FUNCTION leasehold.count_things(p int) RETURNS bigint LANGUAGE sql AS $$ SELECT 0::bigint $$;', /a second count_things \(an overload\)/],
  ])('in an expand migration: %s', (_name, sql, message) => {
    const root = repo({ '0001-base.sql': BASE, '0002-change.sql': expand(sql) });
    expect(() => readMigrations(root)).toThrow(message);
    expect(() => readMigrations(root)).toThrow(`${MIGRATIONS_DIR}/0002-change.sql: expand migration`);
  });

  it.each([
    ['a transaction of its own', 'BEGIN;', /controls the transaction/],
    ['CONCURRENTLY', 'CREATE INDEX CONCURRENTLY things_n ON leasehold.things (name);', /CONCURRENTLY/],
  ])('in any migration: %s', (_name, sql, message) => {
    expect(() => readMigrations(repo({ '0001-base.sql': BASE, '0002-change.sql': `-- kind: contract\n--\n${sql}\n` }))).toThrow(message);
  });

  it.each([
    ['no kind', { '0001-base.sql': '--\nCREATE TABLE leasehold.t (id int);\n' }, /`-- kind:` must be expand or contract/],
    ['a file name out of the pattern', { '0001-base.sql': BASE, '2-x.sql': expand('SELECT 1;') }, /a migration is NNNN-kebab-name.sql/],
    ['a number used twice', { '0001-base.sql': BASE, '0001-again.sql': expand('SELECT 1;') }, /number 0001 is used twice/],
    ['compatible-from later than itself', { '0001-base.sql': BASE.replace('--\n', '-- compatible-from: 0003\n--\n') }, /compatible-from is a schema level NNNN no later than 0001/],
    ['a stale replaces', { '0001-base.sql': BASE, '0002-change.sql': expand('SELECT 1;', '-- replaces: count_things\n') }, /names count_things, which it does not redefine/],
  ])('a bad header or name: %s', (_name, files, message) => {
    expect(() => readMigrations(repo(files))).toThrow(message);
  });
});

describe('migration files: what the check allows and derives', () => {
  it('an expand migration adds tables, defaulted or nullable columns, indexes, new functions, and declared in-place fixes', () => {
    const root = repo({
      '0001-base.sql': BASE,
      '0002-more.sql': expand(
        `CREATE TABLE leasehold.notes (id bigint PRIMARY KEY, body text NOT NULL, UNIQUE (body));
ALTER TABLE leasehold.things ADD COLUMN size int NOT NULL DEFAULT 0, ADD COLUMN colour text;
CREATE INDEX things_size ON leasehold.things (size);
-- Words in strings and bodies are not statements: 'DROP TABLE leasehold.things'.
CREATE FUNCTION leasehold.note_count() RETURNS bigint LANGUAGE plpgsql AS $fn$ BEGIN EXECUTE 'DROP TABLE x'; RETURN 0; END $fn$;
-- Counts only named things now (a fix every caller expects).
CREATE OR REPLACE FUNCTION leasehold.count_things() RETURNS bigint LANGUAGE sql AS $$ SELECT count(name) FROM leasehold.things $$;`,
        '-- replaces: count_things\n',
      ),
      '0003-drop.sql': '-- kind: contract\n-- compatible-from: 0002\n--\nDROP FUNCTION leasehold.note_count();\n',
    });
    const { migrations, functions } = readMigrations(root);
    expect(migrations.map((m) => [m.name, m.kind, m.compatibleFrom])).toEqual([
      ['0001-base', 'contract', '0001'],
      ['0002-more', 'expand', undefined],
      ['0003-drop', 'contract', '0002'],
    ]);
    expect([...functions.keys()]).toEqual(['count_things']);
    const outputs = migrationOutputs(root);
    const file = outputs[`${FUNCTIONS_DIR}/count-things.sql`] as string;
    expect(file).toContain('from migrations/0002-more.sql, the last migration that defines leasehold.count_things');
    expect(file).toContain('-- Counts only named things now (a fix every caller expects).\nCREATE OR REPLACE FUNCTION leasehold.count_things()');
    expect(file).not.toContain('note_count');
    expect(outputs['packages/server/src/generated/sql-migrations.ts']).toContain('"name": "0003-drop"');
  });

  it('statements split at semicolons outside strings, quoted names, comments and dollar bodies', () => {
    const parts = splitStatements(`SELECT 'a;b', "c;d"; -- e;f\nCREATE FUNCTION f() RETURNS int AS $x$ SELECT 1; $x$ LANGUAGE sql; SELECT 'it''s;'`);
    expect(parts.map((p) => p.code)).toEqual([`SELECT '', "_"`, 'CREATE FUNCTION f() RETURNS int AS $$…$$ LANGUAGE sql', `SELECT ''`]);
  });

  it("the repository's own migrations pass", () => {
    const { migrations } = readMigrations(join(import.meta.dirname, '..'));
    expect(migrations.length).toBeGreaterThan(0);
  });
});
