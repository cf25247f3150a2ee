import { ClockNotManualError } from '../errors.js';
import type { StoreControls } from '../operations.js';
import { requireIdentName, requireUuid } from '../../engine/validation.js';
import type { SqlDriver, SqlSession } from './driver.js';
import { updateCredential } from './credentials.js';
import { cancelInSpace, settleKey } from './space-claims.js';
import { discardIn, primaryChangeAt } from './spool-levers.js';
import { clockNow, one } from './sql-support.js';

/** What the SQL controls need from their store: its driver, a unit runner and the sweep. */
export interface ControlHost {
  readonly driver: SqlDriver;
  /** Run `fn` in one transaction, driver failures mapped to `StoreUnavailableError`. */
  unit<T>(fn: (tx: SqlSession) => Promise<T>): Promise<T>;
  /** Expire and forget everything due, in bounded batches, until nothing is left. */
  sweepAll(): Promise<number>;
}

/**
 * The test levers in SQL: state in the database, so they act on every process sharing it (the
 * manual clock is the `clock` row's offset; suspension and key standing are rows).
 */
export function sqlControls(host: ControlHost): StoreControls {
  return {
    clockMode: () =>
      host.unit(async (tx) => (one((await tx.query<{ manual: boolean }>('SELECT manual FROM leasehold.clock')).rows).manual ? 'manual' : 'real')),

    async advanceClock(ms) {
      if (!Number.isFinite(ms) || ms < 0) throw new RangeError('ManualClock.advance needs a finite, non-negative ms');
      const now = await host.unit(async (tx) => {
        const { rows } = await tx.query<{ now: number }>(
          'UPDATE leasehold.clock SET offset_ms = offset_ms + $1 WHERE manual RETURNING manual_ms + offset_ms AS now',
          [Math.round(ms)],
        );
        if (rows.length === 0) throw new ClockNotManualError();
        return one(rows).now;
      });
      await host.sweepAll();
      return now;
    },

    cancelScope: (params) =>
      host.unit(async (tx) => {
        const spaceId = requireUuid(params.spaceId, 'spaceId');
        const scopeId = requireUuid(params.scopeId, 'scopeId');
        const now = await clockNow(tx);
        const accounts =
          params.accountId === undefined
            ? (await tx.query<{ account_id: string }>('SELECT account_id FROM leasehold.accounts ORDER BY account_id')).rows.map(
                (r) => r.account_id,
              )
            : [params.accountId];
        let lost = 0;
        for (const accountId of accounts) lost += (await cancelInSpace(tx, accountId, spaceId, scopeId, now)).claimsLost;
        return lost;
      }),

    discardMessage: (params) =>
      host.unit(async (tx) => {
        const name = requireIdentName(params.spool, 'spool');
        const now = await clockNow(tx);
        const { rows } = await tx.query<{ account_id: string }>(
          'SELECT account_id FROM leasehold.spools WHERE name = $1 AND ($2::text IS NULL OR account_id = $2) ORDER BY account_id',
          [name, params.accountId ?? null],
        );
        let discarded = 0;
        for (const row of rows) if ((await discardIn(tx, row.account_id, name, params.handle, now)) !== undefined) discarded++;
        return discarded;
      }),

    primaryChange: () => host.unit(async (tx) => primaryChangeAt(tx, await clockNow(tx))),

    loseLease: (claimId) =>
      host.unit(async (tx) => {
        const now = await clockNow(tx);
        const find = async () =>
          (
            await tx.query<{ lease_id: number; kind: string; key_id: number | null; message_id: number | null; status: string }>(
              `SELECT lease_id, kind, key_id, message_id, status FROM leasehold.leases
                WHERE claim_id = $1 AND status IN ('held', 'queued') AND (expires_at IS NULL OR expires_at > $2)`,
              [claimId, now],
            )
          ).rows[0];
        let lease = await find();
        if (lease === undefined) return 0;
        let holder: number | null = null;
        if (lease.kind === 'space') {
          holder = await settleKey(tx, lease.key_id as number, now);
          lease = await find();
          if (lease === undefined) return 0;
        }
        await tx.query(
          `WITH l AS (UPDATE leasehold.leases SET status = 'lost', lost_reason = 'revoked', ended_at = $2 WHERE lease_id = $1)
           UPDATE leasehold.messages SET lease_id = NULL, lease_expires_at = NULL, visible_at = $2 WHERE lease_id = $1`,
          [lease.lease_id, now],
        );
        if (lease.kind === 'space' && holder === lease.lease_id) await tx.query('SELECT leasehold.pass_on($1, $2)', [lease.key_id, now]);
        return 1;
      }),

    suspendAccount: (accountId, suspended = true) =>
      host.unit(async (tx) => {
        await tx.query('UPDATE leasehold.accounts SET suspended = $2 WHERE account_id = $1', [accountId, suspended]);
        return 1;
      }),

    updateCredential: (apiKey, changes) =>
      host.unit(async (tx) => {
        await updateCredential(tx, apiKey, changes);
        return 1;
      }),
  };
}
