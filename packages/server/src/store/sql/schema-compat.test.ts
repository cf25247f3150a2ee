import { describe, expect, it } from 'vitest';
import { judgeSchema, withCompatibility, type AppliedMigration, type MigrationDefinition } from './schema-compat.js';

const m = (name: string, kind: 'expand' | 'contract', compatibleFrom?: string): MigrationDefinition => ({
  name,
  kind,
  ...(compatibleFrom === undefined ? {} : { compatibleFrom }),
  sql: '',
});
const THIS_BUILD = [m('0001-initial', 'contract'), m('0002-b', 'contract'), m('0003-c', 'expand'), m('0005-e', 'expand')];
const rowsOf = (defs: readonly MigrationDefinition[]): AppliedMigration[] =>
  withCompatibility(defs).map(({ definition, compatibleFrom }) => ({ name: definition.name, kind: definition.kind, compatible_from: compatibleFrom }));

describe('the compatibility each migration records', () => {
  it('an expand keeps the level before it, a contract raises it to its own or the level it declares (never lowers it)', () => {
    const levels = withCompatibility([...THIS_BUILD, m('0007-g', 'contract', '0005'), m('0008-h', 'expand'), m('0009-i', 'contract', '0003')]);
    expect(levels.map((l) => [l.definition.name, l.compatibleFrom])).toEqual([
      ['0001-initial', '0001'],
      ['0002-b', '0002'],
      ['0003-c', '0002'],
      ['0005-e', '0002'],
      ['0007-g', '0005'],
      ['0008-h', '0005'],
      ['0009-i', '0005'],
    ]);
  });
});

describe('judging a database against this build', () => {
  it('a fresh database: everything pending, nothing newer, no problem', () => {
    expect(judgeSchema(THIS_BUILD, [])).toEqual({ pending: THIS_BUILD, newer: [] });
  });

  it('an older database: only what it lacks is pending', () => {
    expect(judgeSchema(THIS_BUILD, rowsOf(THIS_BUILD.slice(0, 2)))).toEqual({ pending: THIS_BUILD.slice(2), newer: [] });
  });

  it('newer expand migrations (and contracts declaring this level) are fine', () => {
    const newer = [...THIS_BUILD, m('0006-f', 'expand'), m('0007-g', 'contract', '0005'), m('0008-h', 'expand')];
    expect(judgeSchema(THIS_BUILD, rowsOf(newer))).toEqual({ pending: [], newer: ['0006-f', '0007-g', '0008-h'] });
  });

  it('a newer contract beyond this build is refused, naming it, its kind, the build it needs and this build', () => {
    const newer = [...THIS_BUILD, m('0006-f', 'expand'), m('0012-x', 'contract'), m('0013-y', 'expand')];
    expect(judgeSchema(THIS_BUILD, rowsOf(newer)).problem).toBe(
      'the database has migration 0012-x (contract) which requires a build of schema ≥ 0012; this build knows up to 0005-e: run a build of that schema or later',
    );
  });

  it('a newer migration recorded without compatibility (Kysely wrote it) is refused: nothing says an older build works with it', () => {
    const applied: AppliedMigration[] = [...rowsOf(THIS_BUILD), { name: '0006-f', kind: null, compatible_from: null }];
    expect(judgeSchema(THIS_BUILD, applied).problem).toMatch(/^the database has migration 0006-f which was recorded without its compatibility/);
  });

  it('rows Kysely wrote for migrations this build knows need no compatibility', () => {
    expect(judgeSchema(THIS_BUILD, THIS_BUILD.map((d) => ({ name: d.name })))).toEqual({ pending: [], newer: [] });
  });

  it('a history that skipped one of this build below its latest is refused', () => {
    const applied = rowsOf(THIS_BUILD).filter((r) => r.name !== '0003-c');
    expect(judgeSchema(THIS_BUILD, applied).problem).toBe(
      'the database lacks migration 0003-c of this build but already has the later 0005-e: migrations apply in order, and a released migration is never added below a later one',
    );
  });
});
