// Types of scripts/sql-migrations.mjs, for its tests (TypeScript).
export declare const MIGRATIONS_DIR: string;
export declare const FUNCTIONS_DIR: string;

export interface ParsedMigration {
  name: string;
  kind: 'expand' | 'contract';
  compatibleFrom?: string;
  sql: string;
}

export interface FunctionDefinition {
  /** The last migration that defines it. */
  migration: string;
  /** Its CREATE statement as written. */
  text: string;
  triggers: { migration: string; text: string }[];
}

/** Statements of a script: as written, and with comments and quoted parts blanked. */
export declare function splitStatements(sql: string): { text: string; code: string }[];
/** Every migration under `root`, checked; each function's current definition. */
export declare function readMigrations(root: string): { migrations: ParsedMigration[]; functions: Map<string, FunctionDefinition> };
/** Repository path → content of every file derived from the migrations. */
export declare function migrationOutputs(root: string): Record<string, string>;
