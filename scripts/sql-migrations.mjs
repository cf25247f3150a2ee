// The SQL store's migrations as files (packages/server/src/store/sql/migrations/NNNN-name.sql):
// read and checked here, for scripts/gen.mjs, which derives from them the module the server
// embeds (src/generated/sql-migrations.ts) and one readable file per function with its current
// definition (store/sql/functions/<name>.sql: the last migration that defines it wins).
//
// A migration file starts with its header, `-- key: value` lines up to the first `--` line:
//   -- kind: expand | contract           (required; docs/storage.md, "Migrations")
//   -- replaces: fn_a, fn_b               (expand: functions it redefines in place, same signature and meaning)
//   -- compatible-from: 0012              (contract: the oldest schema level whose build still works; default its own)
// Everything else in the file is SQL, run as one script inside the migrator's transaction.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where the migrations live, from the repository root. */
export const MIGRATIONS_DIR = 'packages/server/src/store/sql/migrations';
/** Where the derived function files go, from the repository root. */
export const FUNCTIONS_DIR = 'packages/server/src/store/sql/functions';

const FILE = /^(\d{4})-([a-z0-9]+(?:-[a-z0-9]+)*)\.sql$/;

/**
 * Splits SQL into statements, each with its text as written (leading comments included) and its
 * code: comments removed and every quoted string, identifier and dollar-quoted body blanked, so
 * patterns only ever match the statement's own words.
 */
export function splitStatements(sql) {
  const statements = [];
  let text = '';
  let code = '';
  let i = 0;
  const push = () => {
    if (code.trim() !== '') statements.push({ text: text.replace(/^\s*\n/, '').trimEnd(), code: code.trim() });
    text = '';
    code = '';
  };
  while (i < sql.length) {
    const ch = sql[i];
    const rest = sql.slice(i);
    let end = -1;
    if (rest.startsWith('--')) {
      end = sql.indexOf('\n', i);
      end = end < 0 ? sql.length : end;
      text += sql.slice(i, end);
      code += ' ';
      i = end;
      continue;
    }
    if (rest.startsWith('/*')) {
      end = sql.indexOf('*/', i + 2);
      end = end < 0 ? sql.length : end + 2;
    } else if (ch === "'" || ch === '"') {
      end = i + 1;
      for (;;) {
        end = sql.indexOf(ch, end);
        if (end < 0) throw new Error(`unterminated ${ch} quote`);
        if (sql[end + 1] === ch) end += 2;
        else break;
      }
      end += 1;
    } else if (ch === '$') {
      const tag = /^\$[A-Za-z_]*\$/.exec(rest);
      if (tag) {
        const close = sql.indexOf(tag[0], i + tag[0].length);
        if (close < 0) throw new Error(`unterminated ${tag[0]} body`);
        end = close + tag[0].length;
      }
    }
    if (end > i) {
      text += sql.slice(i, end);
      code += ch === '"' ? '"_"' : ch === "'" ? "''" : ch === '$' ? '$$…$$' : ' ';
      i = end;
      continue;
    }
    if (ch === ';') {
      text += ';';
      push();
    } else {
      text += ch;
      code += ch;
    }
    i++;
  }
  push();
  return statements;
}

/** What an expand migration may not do: each breaks code that an older build runs. */
const NOT_EXPAND = [
  [/\bDROP\s+(TABLE|COLUMN|FUNCTION|PROCEDURE|TYPE|VIEW|SCHEMA|SEQUENCE|TRIGGER|CONSTRAINT|DEFAULT|NOT\s+NULL)\b/i, 'drops what an older build may use'],
  [/\bRENAME\b/i, 'renames what an older build uses by its old name'],
  [/\bALTER\s+COLUMN\s+\S+\s+(SET\s+DATA\s+)?TYPE\b/i, 'changes a column type in place'],
  [/\bSET\s+NOT\s+NULL\b/i, 'tightens a column an older build writes'],
  [/\bADD\s+(CONSTRAINT|PRIMARY\s+KEY|UNIQUE|CHECK|FOREIGN\s+KEY|EXCLUDE)\b/i, 'adds a constraint an older build may write against'],
  [/\bCREATE\s+UNIQUE\s+INDEX\b/i, 'adds a uniqueness an older build may write against (a unique index on a new table: create it with the table, in the same migration, as a constraint of CREATE TABLE)'],
  [/\bADD\s+(COLUMN\s+)?(IF\s+NOT\s+EXISTS\s+)?(?!CONSTRAINT\b)\S+[^,]*\bNOT\s+NULL\b(?![^,]*\bDEFAULT\b)[^,]*/i, 'adds a NOT NULL column without a DEFAULT (an older build inserts rows without it)'],
  [/^(TRUNCATE|DELETE)\b/i, 'deletes rows an older build may read'],
];

/** Statements no migration may hold: the migrator runs each inside its own transaction. */
const NEVER = [
  [/^(BEGIN|START\s+TRANSACTION|COMMIT|END|ROLLBACK)\b/i, 'controls the transaction (the migrator runs every migration inside its own)'],
  [/\bCONCURRENTLY\b/i, 'cannot run inside a transaction (CONCURRENTLY)'],
];

function parseHeader(file, sql) {
  const header = {};
  for (const line of sql.split('\n')) {
    if (line.trim() === '--') break;
    const field = /^-- ([a-z-]+): (.+)$/.exec(line);
    if (!field) throw new Error(`${file}: the header is \`-- key: value\` lines ending with a \`--\` line; found ${JSON.stringify(line)}`);
    header[field[1]] = field[2].trim();
  }
  return header;
}

/**
 * Every migration file, checked: numbered NNNN-name.sql (unique numbers, applied in order), a
 * header with its kind, and for an expand migration none of what breaks an older build. Throws
 * with the file and the rule on any violation. Answers the migrations in order and the current
 * definition of every function (`{ name, migration, text }`).
 */
export function readMigrations(root) {
  const dir = join(root, MIGRATIONS_DIR);
  const files = readdirSync(dir).filter((f) => !f.startsWith('.')).sort();
  const migrations = [];
  /** name → { migration, text, triggers } */
  const functions = new Map();
  const seen = new Set();
  for (const file of files) {
    const match = FILE.exec(file);
    if (!match) throw new Error(`${MIGRATIONS_DIR}/${file}: a migration is NNNN-kebab-name.sql (nothing else lives in migrations/)`);
    const [, number, slug] = match;
    if (seen.has(number)) throw new Error(`${MIGRATIONS_DIR}/${file}: number ${number} is used twice`);
    seen.add(number);
    const name = `${number}-${slug}`;
    const sql = readFileSync(join(dir, file), 'utf8');
    const where = `${MIGRATIONS_DIR}/${file}`;
    const header = parseHeader(where, sql);
    const unknown = Object.keys(header).filter((key) => !['kind', 'replaces', 'compatible-from'].includes(key));
    if (unknown.length > 0) throw new Error(`${where}: unknown header field ${unknown.join(', ')}`);
    const kind = header.kind;
    if (kind !== 'expand' && kind !== 'contract') throw new Error(`${where}: \`-- kind:\` must be expand or contract (docs/storage.md, "Migrations")`);
    if (kind === 'expand' && header['compatible-from'] !== undefined) throw new Error(`${where}: only a contract migration declares compatible-from`);
    if (kind === 'contract' && header.replaces !== undefined) throw new Error(`${where}: replaces is for expand migrations (a contract may redefine anything)`);
    let compatibleFrom;
    if (kind === 'contract') {
      compatibleFrom = header['compatible-from'] ?? number;
      if (!/^\d{4}$/.test(compatibleFrom) || compatibleFrom > number) throw new Error(`${where}: compatible-from is a schema level NNNN no later than ${number}`);
    }
    const replaces = new Set((header.replaces ?? '').split(',').map((s) => s.trim()).filter(Boolean));
    const replaced = new Set();
    let statements;
    try {
      // The file's leading comment block (header and summary) belongs to no statement.
      statements = splitStatements(sql.replace(/^(--.*\n)+/, ''));
    } catch (error) {
      throw new Error(`${where}: ${error.message}`);
    }
    for (const { text, code } of statements) {
      const refuse = (why) => {
        throw new Error(`${where}: ${kind} migration ${why}:\n  ${code.split('\n')[0]}`);
      };
      for (const [pattern, why] of NEVER) if (pattern.test(code)) refuse(why);
      if (kind === 'expand') for (const [pattern, why] of NOT_EXPAND) if (pattern.test(code)) refuse(`${why} — make it a contract migration (docs/storage.md, "Migrations")`);
      const created = /^CREATE\s+(OR\s+REPLACE\s+)?FUNCTION\s+leasehold\.(\w+)\s*\(/i.exec(code);
      if (created) {
        const [, orReplace, fn] = created;
        const exists = functions.has(fn);
        if (exists && !orReplace) refuse(`creates a second ${fn} (an overload): give the new function a new name`);
        if (kind === 'expand' && exists) {
          if (!replaces.has(fn)) refuse(`redefines ${fn} in place: give the new behaviour a new name, or list it in \`-- replaces:\` when every caller of an older build gets the answers it expects (same signature, same meaning)`);
          replaced.add(fn);
        }
        functions.set(fn, { migration: name, text, triggers: [] });
        continue;
      }
      const dropped = /^DROP\s+FUNCTION\s+(IF\s+EXISTS\s+)?leasehold\.(\w+)/i.exec(code);
      if (dropped) {
        functions.delete(dropped[2]);
        continue;
      }
      const trigger = /^CREATE\s+(OR\s+REPLACE\s+)?TRIGGER\b[\s\S]*\bEXECUTE\s+(FUNCTION|PROCEDURE)\s+leasehold\.(\w+)/i.exec(code);
      if (trigger) functions.get(trigger[3])?.triggers.push({ migration: name, text });
    }
    const stale = [...replaces].filter((fn) => !replaced.has(fn));
    if (stale.length > 0) throw new Error(`${where}: \`-- replaces:\` names ${stale.join(', ')}, which it does not redefine`);
    migrations.push({ name, kind, ...(compatibleFrom === undefined ? {} : { compatibleFrom }), sql });
  }
  return { migrations, functions };
}

const GENERATED = (what) =>
  `-- Generated by scripts/gen.mjs from ${what} — do not edit.\n` +
  '-- A function changes through a new migration (docs/storage.md, "Adding a migration"); then `pnpm gen`.\n';

/** The derived files: the embedded module's source and each function's current definition. */
export function migrationOutputs(root) {
  const { migrations, functions } = readMigrations(root);
  const module =
    '// Generated by scripts/gen.mjs (scripts/sql-migrations.mjs) from packages/server/src/store/sql/migrations/*.sql — do not edit.\n' +
    '// Add a migration as a new .sql file there, then run `pnpm gen`.\n\n' +
    "import type { MigrationDefinition } from '../store/sql/schema-compat.js';\n\n" +
    '/** Every migration of the SQL store, in order: its name, kind, and SQL (the file as written). */\n' +
    `export const sqlMigrations: readonly MigrationDefinition[] = ${JSON.stringify(migrations, null, 2)};\n`;
  const outputs = { 'packages/server/src/generated/sql-migrations.ts': module };
  for (const [fn, { migration, text, triggers }] of [...functions].sort(([a], [b]) => a.localeCompare(b))) {
    const fired = triggers.map((t) => `\n\n-- Fired by (${t.migration}):\n${t.text}`).join('');
    outputs[`${FUNCTIONS_DIR}/${fn.replaceAll('_', '-')}.sql`] =
      GENERATED(`migrations/${migration}.sql, the last migration that defines leasehold.${fn}`) + '\n' + text + fired + '\n';
  }
  return outputs;
}
