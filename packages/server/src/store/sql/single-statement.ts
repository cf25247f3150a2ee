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
   * The secret its answer carries that the database does not hold (an acquire's or a receive's
   * lease token; the database keeps its digest). The function then takes one more argument
   * before the record's four: the secret sealed under the unit's record (`sealAnswer`), or NULL
   * without a record; it keeps the sealed secret in the stored outcome (migration
   * `0015-sealed-secrets`). The row the unit answers carries `secret`: this one, or on a replay
   * the one the first call sealed.
   */
  readonly secret?: string;
}
