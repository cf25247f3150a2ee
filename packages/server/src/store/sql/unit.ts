import { EngineError, IDEMPOTENCY_TTL_MS } from '../../engine/index.js';
import type { ExecuteResult, OperationOutcome, OperationRequest } from '../operations.js';
import { openAnswer, sealAnswer } from './answer-seal.js';
import type { SqlDriver, SqlResult, SqlSession, SqlTransaction } from './driver.js';
import { sqlLiteral } from './drivers/sql-literals.js';
import { asUnavailable } from './failures.js';
import { one } from './sql-support.js';
import type { SingleStatement } from './single-statement.js';


/** The idempotency record a unit claims: where it lives and what it is for. */
export interface UnitRecord {
  readonly credentialId: string;
  readonly key: string;
  readonly fingerprint: string;
  /** SHA-256 over credential and key (`recordAddress`). */
  readonly hash: Buffer;
  /** The transaction-scoped advisory lock id (a decimal bigint). */
  readonly lock: string;
}

interface BeginRow {
  locked: boolean;
  fingerprint: string | null;
  answer: Uint8Array | null;
  outcome: string | null;
}

interface SingleRow extends Omit<BeginRow, 'locked' | 'fingerprint'> {
  verdict: 'ran' | 'replay' | 'reused' | 'in_flight';
  stored: boolean | null;
}

type Verdict<A> = { replay: A } | { refuse: EngineError };

/** Thrown into an operation whose unit has its verdict (a replay, in flight, key reused): it stops there. */
class UnitStopped extends Error {
  constructor() {
    super('The unit of work was decided by its idempotency record.');
  }
}

/** A bytea literal for the scripts sent with BEGIN and COMMIT (the store's one encoder, `drivers/sql-literals.ts`). */
const bytesLiteral = (bytes: Uint8Array) => `${sqlLiteral(bytes)}::bytea`;
/** A text literal, likewise. */
const textLiteral = (text: string) => `${sqlLiteral(text)}::text`;

/** A paramless read that may travel in BEGIN's message. */
const INLINE_READ = /^\s*SELECT\b(?![\s\S]*\bFOR\s+(UPDATE|NO\s+KEY|SHARE|KEY)\b)/i;

/**
 * One API operation's unit of work on a SQL store, deciding late what it needs: nothing when the
 * operation sends no statement; ONE autocommit statement when the operation is a
 * `SingleStatement` (the function checks the idempotency record, writes, and stores the outcome
 * in that statement's own transaction); otherwise a transaction opened with the operation's
 * first statement, BEGIN and the idempotency claim travelling in one message and the record
 * travelling with COMMIT. The operation sees it as its `SqlSession`.
 */
export class OperationUnit<A> implements SqlSession {
  #state: 'idle' | 'single' | 'tx' = 'idle';
  #tx: SqlTransaction | undefined;
  #verdict: Verdict<A> | undefined;
  /** A stored outcome the prelude found; only the `SingleStatement` that stored it can answer it. */
  #pendingOutcome: string | undefined;
  #replayed = false;
  #storedBySingle = false;

  constructor(
    private readonly driver: SqlDriver,
    private readonly request: OperationRequest<A>,
    private readonly record: UnitRecord | undefined,
  ) {}

  /** A statement of the operation (opens the transaction on the first one). */
  async query<T>(text: string, params?: readonly unknown[]): Promise<SqlResult<T>> {
    this.#stopIfDecided();
    if (this.#state === 'single') throw new Error('A one-statement operation sent a second statement.');
    if (this.#state === 'idle') {
      const inline = (params === undefined || params.length === 0) && INLINE_READ.test(text) ? text : undefined;
      const results = await this.#open(inline);
      if (this.#pendingOutcome !== undefined) throw new Error('A stored outcome belongs to another operation.');
      if (inline !== undefined) return results[results.length - 1] as SqlResult<T>;
    }
    return (this.#tx as SqlTransaction).query<T>(text, params);
  }

  /**
   * Run a one-statement operation: its row (or a replayed one), `undefined` when it answered none.
   * A call with a `secret` answers it in the row as `secret` (on a replay, the sealed one opened).
   */
  async single<T>(call: SingleStatement): Promise<T | undefined> {
    this.#stopIfDecided();
    if (this.#state === 'idle' && this.request.beforeCommit === undefined) {
      this.#state = 'single';
      const r = this.record;
      // PGlite is one session, and its store excludes a key's second unit itself (the local set).
      const lock = this.driver.kind === 'pglite' ? null : (r?.lock ?? null);
      const sealed = call.secret === undefined ? [] : [r === undefined ? null : sealAnswer(r.credentialId, r.key, call.secret)];
      const params = [...call.args, ...sealed, r?.hash ?? null, lock, r?.fingerprint ?? null, r === undefined ? null : IDEMPOTENCY_TTL_MS];
      const row = one((await this.driver.query<SingleRow>(singleText(call, params.length), params)).rows);
      if (row.verdict === 'ran') {
        this.#storedBySingle = row.stored === true;
        return this.#outcomeRow<T>(call, row.outcome, false);
      }
      const record = this.record as UnitRecord;
      if (row.verdict === 'in_flight') this.#verdict = { refuse: inFlight() };
      else if (row.verdict === 'reused') this.#verdict = { refuse: keyReused() };
      else if (row.answer !== null) this.#verdict = { replay: openAnswer<A>(record.credentialId, record.key, row.answer) };
      else this.#pendingOutcome = row.outcome ?? undefined;
      this.#stopIfDecided();
    } else if (this.#state === 'idle') {
      await this.#open(undefined);
    }
    if (this.#pendingOutcome !== undefined) {
      const stored = this.#pendingOutcome;
      this.#pendingOutcome = undefined;
      this.#replayed = true;
      return this.#outcomeRow<T>(call, stored, true);
    }
    if (this.#state !== 'tx') throw new Error('A one-statement operation sent a second statement.');
    // Inside the unit's transaction the record travels with COMMIT: the function gets none.
    const params = [...call.args, ...(call.secret === undefined ? [] : [null]), null, null, null, null];
    const row = one((await (this.#tx as SqlTransaction).query<SingleRow>(singleText(call, params.length), params)).rows);
    return this.#outcomeRow<T>(call, row.outcome, false);
  }

  /** The row of a function's outcome; with the call's secret, or on a replay the first call's, opened. */
  #outcomeRow<T>(call: SingleStatement, outcome: string | null, replayed: boolean): T | undefined {
    if (outcome === null) return undefined;
    const parsed = JSON.parse(outcome) as { fn: string; row: T | null; sealed?: string | null };
    if (parsed.fn !== call.fn) throw new Error(`A stored outcome of ${parsed.fn} cannot answer ${call.fn}.`);
    const row = parsed.row ?? undefined;
    if (call.secret === undefined || row === undefined) return row;
    const record = this.record;
    const secret =
      !replayed || typeof parsed.sealed !== 'string' || record === undefined
        ? call.secret
        : openAnswer<string>(record.credentialId, record.key, Buffer.from(parsed.sealed, 'base64'));
    return { ...row, secret };
  }

  /** Finish the unit with the operation's outcome (see `Store.execute`). */
  async finish<R>(outcome: OperationOutcome<R>, encode: (outcome: OperationOutcome<R>) => A): Promise<ExecuteResult<A>> {
    try {
      if (this.#verdict !== undefined) return this.#decided();
      if (!outcome.ok) {
        const outage = asUnavailable(outcome.error);
        if (outage !== undefined) throw outage;
      }
      if (this.#state === 'single') return await this.#finishSingle(outcome, encode);
      if (this.#state === 'tx') return await this.#finishTransaction(outcome, encode);
      // The operation sent nothing: its outcome depends on the request alone.
      if (this.record === undefined) {
        const answer = encode(outcome);
        if (this.request.beforeCommit !== undefined) await this.request.beforeCommit();
        return { answer, replayed: false };
      }
      return await this.#recordOnly(() => encode(outcome));
    } finally {
      await this.#tx?.rollback();
    }
  }

  async #finishSingle<R>(outcome: OperationOutcome<R>, encode: (outcome: OperationOutcome<R>) => A): Promise<ExecuteResult<A>> {
    if (this.#replayed) return { answer: encode(outcome), replayed: true };
    let answer: A;
    try {
      answer = encode(outcome);
    } catch (error) {
      // Committed already (as with the memory store): forget the record, so a retry runs again.
      if (this.#storedBySingle) await this.#forgetRecord();
      throw error;
    }
    if (this.#storedBySingle && !this.request.isStorable(answer)) await this.#forgetRecord();
    // A refusal wrote nothing and stored nothing: keep it for replays as a unit of its own.
    if (!outcome.ok && this.record !== undefined && this.request.isStorable(answer)) return this.#recordOnly(() => answer);
    return { answer, replayed: false };
  }

  async #finishTransaction<R>(outcome: OperationOutcome<R>, encode: (outcome: OperationOutcome<R>) => A): Promise<ExecuteResult<A>> {
    const tx = this.#tx as SqlTransaction;
    if (!outcome.ok) {
      if (this.record === undefined) {
        await tx.rollback();
        return { answer: encode(outcome), replayed: false };
      }
      // Keep the idempotency claim, undo the operation's writes.
      await tx.query('ROLLBACK TO SAVEPOINT operation');
    }
    const answer = encode(outcome);
    if (this.#replayed) return { answer, replayed: true };
    const script = this.record !== undefined && this.request.isStorable(answer) ? this.#recordScript(answer) : undefined;
    if (this.request.beforeCommit !== undefined) await this.request.beforeCommit();
    await tx.commit(script);
    return { answer, replayed: false };
  }

  /** A unit of the record alone: claim it, replay what is there, or store `answer` and commit. */
  async #recordOnly(answerOf: () => A): Promise<ExecuteResult<A>> {
    await this.#tx?.rollback();
    const { tx, results } = await this.driver.begin(this.#claimScript(false));
    this.#tx = tx;
    this.#judge(one((results[0] as unknown as SqlResult<BeginRow>).rows));
    // Stored by a one-statement operation running at the same moment: the retry replays it.
    if (this.#pendingOutcome !== undefined) throw inFlight();
    if (this.#verdict !== undefined) return this.#decided();
    const answer = answerOf();
    const script = this.request.isStorable(answer) ? this.#recordScript(answer) : undefined;
    if (this.request.beforeCommit !== undefined) await this.request.beforeCommit();
    await tx.commit(script);
    return { answer, replayed: false };
  }

  async #open(inline: string | undefined): Promise<SqlResult<Record<string, unknown>>[]> {
    this.#state = 'tx';
    const claim = this.record === undefined ? undefined : this.#claimScript(true);
    const script = [claim, inline].filter((s) => s !== undefined).join(';');
    const { tx, results } = await this.driver.begin(script === '' ? undefined : script);
    this.#tx = tx;
    if (claim !== undefined) this.#judge(one((results[0] as unknown as SqlResult<BeginRow>).rows));
    this.#stopIfDecided();
    return claim === undefined ? results : results.slice(2);
  }

  /** Take the record's verdict from what `idempotency_begin` (or a function) read. */
  #judge(row: BeginRow): void {
    const record = this.record as UnitRecord;
    if (!row.locked) this.#verdict = { refuse: inFlight() };
    else if (row.fingerprint === null) return;
    else if (row.fingerprint !== record.fingerprint) this.#verdict = { refuse: keyReused() };
    else if (row.answer !== null) this.#verdict = { replay: openAnswer<A>(record.credentialId, record.key, row.answer) };
    else this.#pendingOutcome = row.outcome ?? undefined;
  }

  #stopIfDecided(): void {
    if (this.#verdict !== undefined) throw new UnitStopped();
  }

  #decided(): ExecuteResult<A> {
    const verdict = this.#verdict as Verdict<A>;
    if ('replay' in verdict) return { answer: verdict.replay, replayed: true };
    throw verdict.refuse;
  }

  #claimScript(savepoint: boolean): string {
    const r = this.record as UnitRecord;
    const begin = `SELECT locked, fingerprint, answer, outcome FROM leasehold.idempotency_begin(${bytesLiteral(r.hash)}, ${BigInt(r.lock)}::bigint)`;
    return savepoint ? `${begin};SAVEPOINT operation` : begin;
  }

  #recordScript(answer: A): string {
    const r = this.record as UnitRecord;
    return `INSERT INTO leasehold.idempotency_records (record_hash, fingerprint, answer, created_at, expires_at)
      SELECT ${bytesLiteral(r.hash)}, ${textLiteral(r.fingerprint)}, ${bytesLiteral(sealAnswer(r.credentialId, r.key, answer))},
             n.now, n.now + ${IDEMPOTENCY_TTL_MS} FROM (SELECT leasehold.now_ms() AS now) n
      ON CONFLICT (record_hash) DO UPDATE
         SET fingerprint = EXCLUDED.fingerprint, answer = EXCLUDED.answer, outcome = NULL,
             created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at`;
  }

  async #forgetRecord(): Promise<void> {
    const r = this.record as UnitRecord;
    await this.driver.query('DELETE FROM leasehold.idempotency_records WHERE record_hash = $1 AND answer IS NULL', [r.hash]);
  }
}

const singleTexts = new Map<string, string>();

/** `SELECT … FROM leasehold.<fn>($1, …, $count)` (built once per function). */
function singleText(call: SingleStatement, count: number): string {
  const id = `${call.fn}/${count}`;
  let text = singleTexts.get(id);
  if (text === undefined) {
    const params = Array.from({ length: count }, (_, i) => `$${i + 1}`).join(', ');
    text = `SELECT verdict, answer, outcome, stored FROM leasehold.${call.fn}(${params})`;
    singleTexts.set(id, text);
  }
  return text;
}

/** `idempotency_in_flight`: another request under the key is running. */
export function inFlight(): EngineError {
  return new EngineError('idempotency_in_flight', 'A request with this Idempotency-Key is still running; retry shortly.', 'Idempotency-Key');
}

function keyReused(): EngineError {
  return new EngineError('idempotency_key_reused', 'This Idempotency-Key was used for a different request; use a new key.', 'Idempotency-Key');
}
