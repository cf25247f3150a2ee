import { EngineError, MAX_QUEUES_PER_SPOOL, toUtc, type Caller } from '../../engine/index.js';
import { claimIdOfToken, mintToken, newClaimId } from '../../engine/lease-tokens.js';
import { randomBase62 } from '../../engine/random.js';
import { requireIdentName, requireInt } from '../../engine/validation.js';
import type { SpoolOperations } from '../operations.js';
import { discardIn } from './spool-levers.js';
import { messageView, queueViews, spoolNotFound, spoolView, type MessageRow } from './spool-views.js';
import { clockNow, digest, jsonText, one, type UnitContext } from './sql-support.js';

const LEASE_FORMAT = /^[A-Za-z0-9_-]{16,256}$/;

/** What a one-statement spool operation found of its spool and queue. */
interface QueueRow {
  result: 'no_spool' | 'no_queue' | 'sent' | 'received' | 'empty';
}

/** Whether `value` passes `requireIdentName` (the one owner of the rule). */
function isName(value: unknown, param: string): boolean {
  try {
    requireIdentName(value, param);
    return true;
  } catch {
    return false;
  }
}

/** The engine's refusals for a missing spool or queue. */
function refuseMissing(row: QueueRow | undefined): void {
  if (row === undefined || row.result === 'no_spool') throw spoolNotFound();
  if (row.result === 'no_queue') throw new EngineError('queue_not_found', 'No such queue.', 'queue');
}

function staleToken(): EngineError {
  return new EngineError('stale_token', 'The lease no longer settles anything.', 'Spooler-Lease');
}

/**
 * Spools in SQL: a message's lease is a lease row; the message is receivable when it has no
 * lease and is visible, or when its lease's expiry (copied on the message) has passed, so an
 * expired lease needs no write to give the message back. Receive picks the oldest receivable
 * message with `FOR UPDATE SKIP LOCKED`: two receivers never get the same one.
 */
export function sqlSpools(unit: UnitContext): SpoolOperations {
  const { tx, random } = unit;

  async function queueOf(caller: Caller, spoolName: string, queueName: string) {
    const spool = requireIdentName(spoolName, 'spool');
    const rows = await tx.query<{ queue_id: number | null; lease_timeout_seconds: number | null; now: number }>(
      `SELECT c.now, q.queue_id, q.lease_timeout_seconds
         FROM (SELECT leasehold.now_ms() AS now) c
         JOIN leasehold.spools s ON s.account_id = $1 AND s.name = $2
         LEFT JOIN leasehold.queues q ON q.account_id = s.account_id AND q.spool = s.name AND q.name = $3`,
      [caller.accountId, spool, typeof queueName === 'string' ? queueName : ''],
    );
    const row = rows.rows[0];
    if (row === undefined) throw spoolNotFound();
    const name = requireIdentName(queueName, 'queue');
    if (row.queue_id === null) throw new EngineError('queue_not_found', 'No such queue.', 'queue');
    return { spool, name, queueId: row.queue_id, timeout: row.lease_timeout_seconds, now: row.now };
  }

  async function requireSpool(caller: Caller, rawName: string): Promise<{ name: string; now: number }> {
    const name = requireIdentName(rawName, 'spool');
    const { rows } = await tx.query<{ now: number; found: boolean }>(
      `SELECT leasehold.now_ms() AS now, EXISTS (SELECT 1 FROM leasehold.spools WHERE account_id = $1 AND name = $2) AS found`,
      [caller.accountId, name],
    );
    const row = one(rows);
    if (!row.found) throw spoolNotFound();
    return { name, now: row.now };
  }

  /** The engine's `#liveLease`: spool first, then the lease's shape, then whether it settles anything. */
  async function liveLease(params: { credential: Caller; spool: string; lease: string }) {
    const spool = await requireSpool(params.credential, params.spool);
    if (typeof params.lease !== 'string' || !LEASE_FORMAT.test(params.lease)) {
      throw new EngineError('invalid_token', 'Spooler-Lease must be 16–256 characters of A–Z a–z 0–9 _ -.', 'Spooler-Lease');
    }
    const claimId = claimIdOfToken('sl_', params.lease);
    const { rows } =
      claimId === undefined
        ? { rows: [] }
        : await tx.query<{ lease_id: number; claim_id: string; message_id: number; queue_id: number; timeout: number | null }>(
            `SELECT l.lease_id, l.claim_id, l.message_id, m.queue_id, q.lease_timeout_seconds AS timeout
               FROM leasehold.leases l
               JOIN leasehold.messages m ON m.message_id = l.message_id AND m.lease_id = l.lease_id
               JOIN leasehold.queues q ON q.queue_id = m.queue_id
              WHERE l.claim_id = $1 AND l.token_hash = $2 AND l.kind = 'spool' AND l.status = 'held'
                AND (l.expires_at IS NULL OR l.expires_at > $5)
                AND m.account_id = $3 AND m.spool = $4
              FOR UPDATE OF l, m`,
            [claimId, digest(params.lease), params.credential.accountId, spool.name, spool.now],
          );
    const lease = rows[0];
    if (lease === undefined) throw new EngineError('stale_token', 'The lease no longer settles anything.', 'Spooler-Lease');
    return { ...lease, now: spool.now };
  }

  /**
   * The spool's name for a one-statement operation on one of its queues; a queue name that is not
   * one is refused after the spool's existence, as the engine orders them (a statement of its own).
   */
  async function namedQueue(caller: Caller, spoolName: string, queueName: string): Promise<string> {
    const spool = requireIdentName(spoolName, 'spool');
    if (!isName(queueName, 'queue')) await queueOf(caller, spool, queueName);
    return spool;
  }

  /** The claim id of a settle's lease, refusing a malformed or unknown lease after the spool, as `liveLease` does. */
  async function leaseClaimId(params: { credential: Caller; spool: string; lease: string }): Promise<string> {
    requireIdentName(params.spool, 'spool');
    const claimId = typeof params.lease === 'string' && LEASE_FORMAT.test(params.lease) ? claimIdOfToken('sl_', params.lease) : undefined;
    if (claimId === undefined) await liveLease(params);
    return claimId as string;
  }

  return {
    async createSpool(params) {
      const name = requireIdentName(params.name, 'name');
      const { rows } = await tx.query<{ created_at: number }>(
        `INSERT INTO leasehold.spools (account_id, name, created_at) VALUES ($1, $2, leasehold.now_ms())
         ON CONFLICT DO NOTHING RETURNING created_at`,
        [params.credential.accountId, name],
      );
      const row = rows[0];
      if (row === undefined) throw new EngineError('spool_exists', 'A spool of that name exists.', 'name');
      return { object: 'spool', name, queues: [], createdAt: toUtc(row.created_at) };
    },

    async getSpool(params) {
      const spool = await requireSpool(params.credential, params.spool);
      return spoolView(tx, params.credential.accountId, spool.name, spool.now);
    },

    async putQueue(params) {
      const name = requireIdentName(params.queue, 'queue');
      const timeout =
        params.leaseTimeoutSeconds === null ? null : requireInt(params.leaseTimeoutSeconds, 1, 43200, 'leaseTimeoutSeconds');
      const spool = await requireSpool(params.credential, params.spool);
      // The spool row is the lock that keeps the queue count under the limit.
      const { rows } = await tx.query<{ queues: number; exists: boolean }>(
        `SELECT (SELECT count(*)::int FROM leasehold.queues WHERE account_id = $1 AND spool = $2) AS queues,
                EXISTS (SELECT 1 FROM leasehold.queues WHERE account_id = $1 AND spool = $2 AND name = $3) AS exists
           FROM leasehold.spools WHERE account_id = $1 AND name = $2 FOR UPDATE`,
        [params.credential.accountId, spool.name, name],
      );
      const state = one(rows);
      if (!state.exists && state.queues >= MAX_QUEUES_PER_SPOOL) {
        throw new EngineError('plan_limit_exceeded', `A spool holds at most ${MAX_QUEUES_PER_SPOOL} queues.`, 'queue');
      }
      await tx.query(
        `INSERT INTO leasehold.queues (account_id, spool, name, lease_timeout_seconds) VALUES ($1, $2, $3, $4)
         ON CONFLICT (account_id, spool, name) DO UPDATE SET lease_timeout_seconds = EXCLUDED.lease_timeout_seconds`,
        [params.credential.accountId, spool.name, name, timeout],
      );
      const queue = one(await queueViews(tx, params.credential.accountId, spool.name, spool.now, name));
      return { queue, created: !state.exists };
    },

    async getQueue(params) {
      const queue = await queueOf(params.credential, params.spool, params.queue);
      return one(await queueViews(tx, params.credential.accountId, queue.spool, queue.now, queue.name));
    },

    async send(params) {
      const delay = requireInt(params.delaySeconds, 0, 900, 'delaySeconds', 0);
      const spool = await namedQueue(params.credential, params.spool, params.queue);
      // One statement (`send_message`), refusing in the engine's order: spool, then queue.
      const row = await unit.single<QueueRow & { message?: MessageRow }>({
        fn: 'send_message',
        args: [params.credential.accountId, spool, params.queue, `msg_${randomBase62(random, 16)}`, `hdl_${randomBase62(random, 16)}`,
          jsonText(params.body ?? null), delay],
      });
      refuseMissing(row);
      return messageView(row?.message as MessageRow);
    },

    async receive(params) {
      const spool = await namedQueue(params.credential, params.spool, params.queue);
      const claimId = newClaimId(random);
      const token = mintToken('sl_', claimId, random);
      // One statement (`receive_message_sealed`): a replay answers the first call's lease token, which its record keeps sealed.
      const row = await unit.single<QueueRow & { message?: MessageRow; now?: number; timeout?: number | null; secret?: string }>({
        fn: 'receive_message_sealed',
        secret: token,
        args: [params.credential.accountId, spool, params.queue, claimId, digest(token), params.credential.credentialId,
          params.holderSession ?? null],
      });
      refuseMissing(row);
      if (row?.result === 'empty') return null;
      const timeout = row?.timeout ?? null;
      const expiresAt = timeout === null ? null : (row?.now as number) + timeout * 1000;
      return { message: messageView(row?.message as MessageRow), lease: row?.secret ?? token, expiresAt, leaseSeconds: timeout };
    },

    async renew(params) {
      const lease = await liveLease(params);
      const expiresAt = lease.timeout === null ? null : lease.now + lease.timeout * 1000;
      await tx.query(
        `WITH l AS (UPDATE leasehold.leases SET expires_at = $2, due_at = least(due_at, $2), lease_seconds = $3 WHERE lease_id = $1)
         UPDATE leasehold.messages SET lease_expires_at = $2 WHERE message_id = $4`,
        [lease.lease_id, expiresAt, lease.timeout, lease.message_id],
      );
      return { claimId: lease.claim_id, expiresAt, leaseSeconds: lease.timeout };
    },

    async ack(params) {
      const claimId = await leaseClaimId(params);
      // One statement (`ack_message`): the live lease, then lease and message deleted.
      const row = await unit.single<{ result: 'no_spool' | 'stale' | 'acked' }>({
        fn: 'ack_message',
        args: [params.credential.accountId, params.spool, claimId, digest(params.lease)],
      });
      if (row?.result === 'no_spool') throw spoolNotFound();
      if (row?.result !== 'acked') throw staleToken();
    },

    async nack(params) {
      const delay = requireInt(params.delaySeconds, 0, 900, 'delaySeconds', 0);
      const lease = await liveLease(params);
      await tx.query(
        `WITH l AS (DELETE FROM leasehold.leases WHERE lease_id = $1)
         UPDATE leasehold.messages SET lease_id = NULL, lease_expires_at = NULL, visible_at = $3::bigint + $4::bigint * 1000
          WHERE message_id = $2`,
        [lease.lease_id, lease.message_id, lease.now, delay],
      );
    },

    async discard(params) {
      const spool = await requireSpool(params.credential, params.spool);
      const view = await discardIn(tx, params.credential.accountId, spool.name, params.handle, spool.now);
      if (view === undefined) throw new EngineError('message_not_found', 'No such message in this spool.', 'handle');
      return view;
    },
  };
}

