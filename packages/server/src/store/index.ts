/**
 * The operations interface under the HTTP pipeline and its implementations: the in-memory
 * engine (`MemoryStore`) and the SQL store for PostgreSQL and PGlite (`SqlStore`).
 */

/** The interface: one unit of work per API operation. */
export type {
  ActivityOperations,
  ClaimOperations,
  EngineBacked,
  ExecuteResult,
  FaultRuleRow,
  FaultRuleTable,
  IdempotencyClaim,
  MaybeAsync,
  MaybePromise,
  OperationOutcome,
  OperationRequest,
  PoolUsage,
  Readiness,
  Operations,
  SpoolOperations,
  Store,
  StoreControls,
  StoreKind,
  TaskOperations,
} from './operations.js';
/** Typed store failures (503, open errors, the manual-clock refusal). */
export { ClockNotManualError, StoreOpenError, StoreUnavailableError, isStoreUnavailable } from './errors.js';
/** The in-memory store. */
export { MemoryStore } from './memory/memory-store.js';
/** The SQL store and its drivers. */
export { SqlStore, type SqlStoreOptions } from './sql/sql-store.js';
export type { SqlConnection, SqlDriver, SqlResult, SqlSession } from './sql/driver.js';
export { createPgDriver, type PgDriverOptions } from './sql/drivers/pg-driver.js';
export { createPgliteDriver, openPglite, type PgliteDriverOptions } from './sql/drivers/pglite-driver.js';
/** Migrations. */
export { knownMigrations, migrate, type MigrationReport } from './sql/migrate.js';
export { SchemaIncompatibleError, type MigrationDefinition } from './sql/schema-compat.js';
/** Opening a store from a `--store` value. */
export { migrateStore, openStore, parseStoreTarget, redact, STORE_RULE, type OpenStoreOptions, type StoreTarget } from './open-store.js';
/** Hiding secrets in what is printed or logged. */
export { maskKey, redactText, redactUrl } from './redact.js';
/** The embedded store's directory lock. */
export { DataDirLockedError, LOCK_FILE, lockDataDir, type DataDirLock, type LockHolder } from './sql/drivers/data-dir-lock.js';
