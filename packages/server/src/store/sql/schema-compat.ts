import { StoreOpenError } from '../errors.js';

/**
 * Which schemas a build can serve on (docs/storage.md, "Migrations"). A migration is `expand`
 * (it only adds: new tables, columns with defaults or nullable, indexes, functions under new
 * names, in-place fixes of a function's body that keep its signature and meaning) or
 * `contract` (anything an older build could trip on: a drop, a rename, a new constraint, a
 * function changed in place). Each applied migration records `compatible_from`: the oldest
 * schema level whose build still works once it is applied — an expand migration keeps the
 * level before it, a contract raises it to its own (or the level it declares). A build of
 * level L serves on a database when every migration it knows is applied and every applied
 * migration it does not know (a newer release's) has `compatible_from` ≤ L.
 */

/** One migration as the server embeds it (generated from `migrations/NNNN-name.sql`). */
export interface MigrationDefinition {
  /** `NNNN-kebab-name`; the number is its schema level. */
  readonly name: string;
  /** Whether builds before it still work once it is applied. */
  readonly kind: 'expand' | 'contract';
  /** Contract only: the oldest level whose build works with it (default: its own). */
  readonly compatibleFrom?: string;
  /** The SQL script (the file as written). */
  readonly sql: string;
}

/** A row of `leasehold.schema_migrations` (kind and compatible_from are null in rows Kysely's migrator wrote). */
export interface AppliedMigration {
  readonly name: string;
  readonly kind?: string | null;
  readonly compatible_from?: string | null;
}

/** The schema level of a migration name (`0012-x` → `0012`), or of a level itself. */
export function levelOf(name: string): string {
  return name.slice(0, 4);
}

/** Each migration of `definitions` (in order) with the `compatible_from` it records when applied. */
export function withCompatibility(definitions: readonly MigrationDefinition[]): { definition: MigrationDefinition; compatibleFrom: string }[] {
  let floor = '0000';
  return definitions.map((definition) => {
    if (definition.kind === 'contract') {
      const declared = definition.compatibleFrom ?? levelOf(definition.name);
      if (declared > floor) floor = declared;
    }
    return { definition, compatibleFrom: floor };
  });
}

/** What a build can do on a database. */
export interface SchemaVerdict {
  /** Migrations this build knows that the database lacks, in order. */
  readonly pending: readonly MigrationDefinition[];
  /** Applied migrations this build does not know (a newer release's), in order. */
  readonly newer: readonly string[];
  /** Why this build cannot serve on this database (pending ones aside), or undefined. */
  readonly problem?: string;
}

/**
 * Judge a database's applied migrations against the ones this build knows: the pending ones,
 * the newer ones, and — when a newer one is a contract beyond this build, or the database skipped
 * one of this build's below its latest — the exact reason this build cannot serve.
 */
export function judgeSchema(known: readonly MigrationDefinition[], applied: readonly AppliedMigration[]): SchemaVerdict {
  const knownNames = new Set(known.map((m) => m.name));
  const appliedNames = new Set(applied.map((m) => m.name));
  const pending = known.filter((m) => !appliedNames.has(m.name));
  const newerRows = applied.filter((m) => !knownNames.has(m.name)).sort((a, b) => a.name.localeCompare(b.name));
  const newer = newerRows.map((m) => m.name);
  const latestKnown = known.at(-1)?.name ?? 'none';
  const buildLevel = levelOf(latestKnown);
  const blocking = newerRows.find((m) => m.compatible_from === null || m.compatible_from === undefined || m.compatible_from > buildLevel);
  if (blocking !== undefined) {
    const requirement =
      blocking.compatible_from === null || blocking.compatible_from === undefined
        ? 'was recorded without its compatibility (by a build older than this migrator), so it requires a build that knows it'
        : `requires a build of schema ≥ ${blocking.compatible_from}`;
    const kind = blocking.kind === 'expand' || blocking.kind === 'contract' ? ` (${blocking.kind})` : '';
    return {
      pending,
      newer,
      problem: `the database has migration ${blocking.name}${kind} which ${requirement}; this build knows up to ${latestKnown}: run a build of that schema or later`,
    };
  }
  const latestApplied = [...appliedNames].sort().at(-1);
  const skipped = latestApplied === undefined ? undefined : pending.find((m) => m.name < latestApplied);
  if (skipped !== undefined && latestApplied !== undefined) {
    return {
      pending,
      newer,
      problem: `the database lacks migration ${skipped.name} of this build but already has the later ${latestApplied}: migrations apply in order, and a released migration is never added below a later one`,
    };
  }
  return { pending, newer };
}

/**
 * This build cannot serve on the database: a newer release applied a contract migration beyond
 * what this build knows, or the database's history does not fit this build's. A `StoreOpenError`,
 * so the server refuses to start with the message (`leasehold-server: …`, exit 1).
 */
export class SchemaIncompatibleError extends StoreOpenError {
  /** `reason` says exactly which migration and which build it requires. */
  constructor(reason: string) {
    super(`The database schema is incompatible with this build: ${reason}.`);
    this.name = 'SchemaIncompatibleError';
  }
}
