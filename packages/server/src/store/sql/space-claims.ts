import {
  CANCELLED_SCOPE_MS,
  EngineError,
  SPACE_LEASE_MAX_SECONDS,
  SPACE_LEASE_MIN_SECONDS,
  canSeeSpace,
  type Caller,
  type ScopeCancellation,
} from '../../engine/index.js';
import { claimIdOfToken, mintToken, newClaimId } from '../../engine/lease-tokens.js';
import { decodeCursor, encodeCursor, requireKey } from '../../engine/space-keys.js';
import { requireInt, requireString, requireUuid } from '../../engine/validation.js';
import type { ClaimOperations } from '../operations.js';
import type { SqlSession } from './driver.js';
import { claimFromRow, claimRows, releasedFromRow, type ClaimRow } from './space-claim-rows.js';
import { TOMBSTONE_MS, clockNow, digest, jsonText, one, prefixUpperBound, sortKeyOf, type UnitContext } from './sql-support.js';

/**
 * Space claims in SQL, with the engine's validation (the same validators, in the engine's order)
 * and answers. A key's row is its lock: every operation on a key takes it (`settle_key`), settles
 * what fell due (lazy expiry with FIFO hand-over at each expiry instant), then acts.
 */
export function sqlSpaceClaims(unit: UnitContext): ClaimOperations {
  const { tx, random } = unit;
  return {
    async acquire(params) {
      const key = requireKey(params.key);
      const scopeId = requireUuid(params.scopeId, 'scopeId');
      const holder = requireString(params.holder, 1, 200, 'holder');
      const holderSession = requireString(params.holderSession, 1, 200, 'holderSession');
      const leaseSeconds = requireInt(params.leaseSeconds, SPACE_LEASE_MIN_SECONDS, SPACE_LEASE_MAX_SECONDS, 'leaseSeconds', 30);
      const spaceId = visibleSpace(params.credential, params.spaceId);
      const accountId = params.credential.accountId;
      const claimId = newClaimId(random);
      const token = mintToken('lht_', claimId, random);
      // One statement (`acquire_space_claim_sealed`): a replay answers the first call's token, which its record keeps sealed.
      const row = await unit.single<{ refusal?: 'scope_cancelled' | 'claim_held'; claim?: ClaimRow; secret?: string }>({
        fn: 'acquire_space_claim_sealed',
        secret: token,
        args: [accountId, spaceId, key, sortKeyOf(key), scopeId, holder, holderSession, leaseSeconds, params.wait === true, claimId,
          digest(token), params.credential.credentialId],
      });
      if (row?.refusal === 'scope_cancelled') throw scopeCancelled();
      if (row?.refusal === 'claim_held') throw new EngineError('claim_held', 'The key is held by another claimant.', 'key');
      return claimFromRow(row?.claim as ClaimRow, row?.secret ?? token);
    },

    async get(params) {
      const key = requireKey(params.key);
      const spaceId = visibleSpace(params.credential, params.spaceId);
      const now = await clockNow(tx);
      const keyId = await keyIdOf(tx, params.credential.accountId, spaceId, key);
      const holderLease = keyId === undefined ? null : await settleKey(tx, keyId, now);
      if (holderLease === null) throw new EngineError('claim_not_found', 'Nobody holds this key.', 'key');
      return claimFromRow(one(await claimRows(tx, [holderLease], now)));
    },

    async list(params) {
      const limit = requireInt(params.limit, 1, 100, 'limit', 50);
      const prefix = params.prefix ?? '';
      const after = params.cursor === undefined ? undefined : decodeCursor(params.cursor);
      const spaceId = visibleSpace(params.credential, params.spaceId);
      const accountId = params.credential.accountId;
      const now = await clockNow(tx);
      await settleDueInSpace(tx, accountId, spaceId, now);
      const prefixKey = sortKeyOf(prefix);
      const { rows } = await tx.query<{ holder_lease: number }>(
        `SELECT holder_lease FROM leasehold.space_keys
          WHERE account_id = $1 AND space_id = $2 AND holder_lease IS NOT NULL
            AND sort_key >= $3 AND ($4::bytea IS NULL OR sort_key < $4) AND ($5::bytea IS NULL OR sort_key > $5)
          ORDER BY sort_key LIMIT $6`,
        [accountId, spaceId, prefixKey, prefixUpperBound(prefixKey), after === undefined ? null : sortKeyOf(after), limit + 1],
      );
      const page = rows.slice(0, limit);
      const claims = (await claimRows(tx, page.map((r) => r.holder_lease), now)).map((row) => claimFromRow(row));
      const last = claims[claims.length - 1];
      return { object: 'list', data: claims, nextCursor: rows.length > limit && last !== undefined ? encodeCursor(last.key) : null };
    },

    async renew(params) {
      const leaseSeconds = requireInt(params.leaseSeconds, SPACE_LEASE_MIN_SECONDS, SPACE_LEASE_MAX_SECONDS, 'leaseSeconds', 30);
      const target = tokenTarget(params);
      if (target === undefined) throw notHeld();
      // One statement (`renew_space_claim`): extend when the token holds the key now; else the row tells why not.
      const row = await unit.single<ClaimRow & TokenRow & { now: number; renewed: boolean; new_expires_at: number | null }>({
        fn: 'renew_space_claim',
        args: [target.claimId, target.tokenHash, leaseSeconds, params.credential.accountId, target.spaceId, target.key],
      });
      if (row === undefined || !matchesTarget(row, params.credential, target, row.now)) throw notHeld();
      if (row.renewed) return claimFromRow({ ...row, status: 'held', expires_at: row.new_expires_at as number });
      const state = effectiveState(row, row.now);
      if (state.status === 'queued') throw new EngineError('claim_queued', 'The claim is still waiting in the queue.', 'token');
      if (state.status === 'lost') throw lostError(state.reason);
      throw notHeld();
    },

    async release(params) {
      const target = tokenTarget(params);
      if (target === undefined) throw notHeld();
      const observation = params.observation ?? null;
      // One statement (`release_space_claim`): settle the key, release, hand the key on.
      const row = await unit.single<{ result: 'not_held' | 'lost' | 'released'; reason?: string | null; view?: TokenRow }>({
        fn: 'release_space_claim',
        args: [target.claimId, target.tokenHash, params.credential.accountId, target.spaceId, target.key, jsonText(observation)],
      });
      if (row === undefined || row.result === 'not_held') throw notHeld();
      if (row.result === 'lost') throw lostError(row.reason ?? null);
      return releasedFromRow(row.view as TokenRow);
    },

    async cancelScope(params) {
      const scopeId = requireUuid(params.scopeId, 'scopeId');
      const spaceId = visibleSpace(params.credential, params.spaceId);
      const now = await clockNow(tx);
      const { claimsLost, cancelledAt } = await cancelInSpace(tx, params.credential.accountId, spaceId, scopeId, now);
      const answer: ScopeCancellation = { object: 'scope_cancellation', spaceId, scopeId, cancelled: true, cancelledAt, claimsLost };
      return answer;
    },
  };
}

/** A space lease found by its token, with what the checks read. */
export interface TokenRow {
  lease_id: number;
  claim_id: string;
  kind: string;
  account_id: string;
  key_id: number | null;
  space_id: string;
  key: string;
  scope_id: string;
  holder: string;
  status: 'held' | 'queued' | 'lost' | 'released';
  lost_reason: string | null;
  expires_at: number | null;
  ended_at: number | null;
  released_at: number | null;
  observation: string | null;
}

interface TokenTarget {
  claimId: string;
  tokenHash: Buffer;
  spaceId: string;
  key: string;
}

/** Cancel `scopeId` in one space at `now` (the engine's `cancelIn`); shared with the control. */
export async function cancelInSpace(
  tx: SqlSession,
  accountId: string,
  spaceId: string,
  scopeId: string,
  now: number,
): Promise<{ claimsLost: number; cancelledAt: number }> {
  const marked = await tx.query<{ cancelled_at: number }>(
    `INSERT INTO leasehold.cancelled_scopes (account_id, space_id, scope_id, cancelled_at, forget_at)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (account_id, space_id, scope_id) DO UPDATE
        SET cancelled_at = EXCLUDED.cancelled_at, forget_at = EXCLUDED.forget_at
      WHERE leasehold.cancelled_scopes.forget_at <= EXCLUDED.cancelled_at
     RETURNING cancelled_at`,
    [accountId, spaceId, scopeId, now, now + CANCELLED_SCOPE_MS],
  );
  if (marked.rows.length === 0) {
    const existing = await tx.query<{ cancelled_at: number }>(
      'SELECT cancelled_at FROM leasehold.cancelled_scopes WHERE account_id = $1 AND space_id = $2 AND scope_id = $3',
      [accountId, spaceId, scopeId],
    );
    return { claimsLost: 0, cancelledAt: one(existing.rows).cancelled_at };
  }
  // Lock the run's keys (in key order), settle what fell due, then take the run's live claims:
  // waiters first, so each freed key passes to a waiter of another run.
  const { rows } = await tx.query<{ lost: number }>(
    `WITH keys AS (
       SELECT k.key_id FROM leasehold.space_keys k
        WHERE k.key_id IN (SELECT key_id FROM leasehold.leases
                            WHERE account_id = $1 AND space_id = $2 AND scope_id = $3 AND kind = 'space'
                              AND status IN ('held', 'queued'))
        ORDER BY k.key_id FOR UPDATE
     )
     SELECT count(leasehold.settle_key(key_id, $4)) AS lost FROM keys`,
    [accountId, spaceId, scopeId, now],
  );
  void rows;
  const waiters = await tx.query(
    `UPDATE leasehold.leases SET status = 'lost', lost_reason = 'scope_cancelled', ended_at = $4
      WHERE account_id = $1 AND space_id = $2 AND scope_id = $3 AND kind = 'space' AND status = 'queued'`,
    [accountId, spaceId, scopeId, now],
  );
  const holders = await tx.query<{ key_id: number }>(
    `UPDATE leasehold.leases SET status = 'lost', lost_reason = 'scope_cancelled', ended_at = $4
      WHERE account_id = $1 AND space_id = $2 AND scope_id = $3 AND kind = 'space' AND status = 'held'
     RETURNING key_id, lease_id`,
    [accountId, spaceId, scopeId, now],
  );
  const keys = (holders.rows as Array<{ key_id: number; lease_id: number }>).sort((a, b) => a.lease_id - b.lease_id);
  if (keys.length > 0) {
    await tx.query('SELECT leasehold.pass_on(k, $2) FROM unnest($1::bigint[]) WITH ORDINALITY AS t(k, n) ORDER BY n', [
      keys.map((k) => k.key_id),
      now,
    ]);
  }
  return { claimsLost: waiters.rowCount + holders.rowCount, cancelledAt: now };
}

/** Settle every key of a space with a lease due by `now` (in key order, the lock order). */
export async function settleDueInSpace(tx: SqlSession, accountId: string, spaceId: string, now: number): Promise<void> {
  await tx.query(
    `SELECT count(leasehold.settle_key(key_id, $3)) FROM (
       SELECT DISTINCT key_id FROM leasehold.leases
        WHERE account_id = $1 AND space_id = $2 AND kind = 'space' AND status IN ('held', 'queued') AND due_at <= $3 AND expires_at <= $3
        ORDER BY key_id) due`,
    [accountId, spaceId, now],
  );
}

/** Lock and settle one key; answers its holder's lease id, or `null` when it is free. */
export async function settleKey(tx: SqlSession, keyId: number, now: number): Promise<number | null> {
  const { rows } = await tx.query<{ holder: number | null }>('SELECT leasehold.settle_key($1, $2) AS holder', [keyId, now]);
  return rows[0]?.holder ?? null;
}

async function keyIdOf(tx: SqlSession, accountId: string, spaceId: string, key: string): Promise<number | undefined> {
  const { rows } = await tx.query<{ key_id: number }>(
    'SELECT key_id FROM leasehold.space_keys WHERE account_id = $1 AND space_id = $2 AND key = $3',
    [accountId, spaceId, key],
  );
  return rows[0]?.key_id;
}

/** The engine's `#byToken` checks, in its order; `undefined` when the token names no lease. */
function tokenTarget(params: { credential: Caller; spaceId: string; key: string; token: string }): TokenTarget | undefined {
  const key = requireKey(params.key);
  const spaceId = requireUuid(params.spaceId, 'spaceId');
  if (!canSeeSpace(params.credential, spaceId)) throw new EngineError('space_not_found', 'No such space.', 'spaceId');
  if (typeof params.token !== 'string' || params.token.length === 0) {
    throw new EngineError('invalid_request', 'token is required.', 'token');
  }
  const claimId = claimIdOfToken('lht_', params.token);
  return claimId === undefined ? undefined : { claimId, tokenHash: digest(params.token), spaceId, key };
}

/** True when the lease is a space lease of the caller's account on the addressed key, still remembered. */
function matchesTarget(row: TokenRow, caller: Caller, target: TokenTarget, now: number): boolean {
  if (row.kind !== 'space' || row.account_id !== caller.accountId || row.space_id !== target.spaceId || row.key !== target.key) {
    return false;
  }
  const ended = effectiveState(row, now).endedAt;
  return ended === null || ended + TOMBSTONE_MS > now;
}

/** A lease's state at `now`, with expiry applied even where no statement has written it yet. */
function effectiveState(row: Pick<TokenRow, 'status' | 'lost_reason' | 'expires_at' | 'ended_at'>, now: number) {
  if ((row.status === 'held' || row.status === 'queued') && row.expires_at !== null && row.expires_at <= now) {
    return { status: 'lost' as const, reason: row.status === 'queued' ? 'lapsed' : 'expired', endedAt: row.expires_at };
  }
  return { status: row.status, reason: row.lost_reason, endedAt: row.ended_at };
}

function visibleSpace(caller: Caller, rawSpaceId: string): string {
  const spaceId = requireUuid(rawSpaceId, 'spaceId');
  if (!canSeeSpace(caller, spaceId)) throw new EngineError('space_not_found', 'No such space.', 'spaceId');
  return spaceId;
}

function notHeld(): EngineError {
  return new EngineError('claim_not_held', 'This token does not hold the key.', 'token');
}

function scopeCancelled(): EngineError {
  return new EngineError('scope_cancelled', 'The run was cancelled.', 'scopeId');
}

function lostError(reason: string | null): EngineError {
  if (reason === 'scope_cancelled') return scopeCancelled();
  return new EngineError('lease_expired', 'The lease expired; the key may have passed to someone else.', 'token');
}
