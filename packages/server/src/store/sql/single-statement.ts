/**
 * A one-statement operation: a database function (schema `leasehold`) that makes the
 * operation's decision and write in one statement, taking the unit's idempotency record as its
 * last four arguments (`record_hash`, `lock`, `fingerprint`, `ttl_ms`; all NULL: no record) and
 * answering `(verdict, answer, outcome, stored)` — see migration `0002-one-round-trip`.
 */
export interface SingleStatement {
  /** The function's name; it also names the outcomes it stores. */
  readonly fn: string;
  /** Its arguments before the four record arguments. */
  readonly args: readonly unknown[];
  /**
   * Its answer carries a secret the database does not hold (an acquire's token): never stored as
   * an outcome, so with an idempotency record it runs inside the unit's transaction and the
   * sealed answer is stored with COMMIT; without a record it is still one statement.
   */
  readonly secret?: boolean;
}
