import { EngineError, toUtc, type Message, type Queue, type Spool } from '../../engine/index.js';
import type { SqlSession } from './driver.js';
import { one, parseJson } from './sql-support.js';

/** A message row joined with its queue's name and its lease's claim id and fence. */
export interface MessageRow {
  message_id: number;
  public_id: string;
  handle: string;
  spool: string;
  queue: string;
  body: string;
  sent_at: number;
  delivery_count: number;
  claim_id: string | null;
  fence: number | null;
}

/** The message columns every read of `MessageRow` selects (`m` messages, `q` queues). */
export const MESSAGE_COLUMNS = `m.message_id, m.public_id, m.handle, m.spool, q.name AS queue, m.body, m.sent_at, m.delivery_count`;

/** The wire queues of a spool at `now` (one, when `name` is given), depth and leased counted in SQL. */
export async function queueViews(tx: SqlSession, accountId: string, spool: string, now: number, name?: string): Promise<Queue[]> {
  const { rows } = await tx.query<{ name: string; lease_timeout_seconds: number | null; depth: number; leased: number }>(
    `SELECT q.name, q.lease_timeout_seconds,
            (SELECT count(*)::int FROM leasehold.messages m
              WHERE m.queue_id = q.queue_id
                AND ((m.lease_id IS NULL AND m.visible_at <= $3) OR (m.lease_id IS NOT NULL AND m.lease_expires_at <= $3))) AS depth,
            (SELECT count(*)::int FROM leasehold.messages m
              WHERE m.queue_id = q.queue_id AND m.lease_id IS NOT NULL
                AND (m.lease_expires_at IS NULL OR m.lease_expires_at > $3)) AS leased
       FROM leasehold.queues q
      WHERE q.account_id = $1 AND q.spool = $2 AND ($4::text IS NULL OR q.name = $4)
      ORDER BY q.name COLLATE "C"`,
    [accountId, spool, now, name ?? null],
  );
  return rows.map((row) => ({
    object: 'queue',
    spool,
    name: row.name,
    leaseTimeoutSeconds: row.lease_timeout_seconds,
    depth: row.depth,
    leased: row.leased,
  }));
}

/** The wire spool with its queues at `now`. */
export async function spoolView(tx: SqlSession, accountId: string, name: string, now: number): Promise<Spool> {
  const { rows } = await tx.query<{ created_at: number }>('SELECT created_at FROM leasehold.spools WHERE account_id = $1 AND name = $2', [
    accountId,
    name,
  ]);
  return { object: 'spool', name, queues: await queueViews(tx, accountId, name, now), createdAt: toUtc(one(rows).created_at) };
}

/** The wire message of a row (with its lease's claim id and fence while it is leased). */
export function messageView(row: MessageRow): Message {
  const view: Message = {
    object: 'message',
    id: row.public_id,
    handle: row.handle,
    spool: row.spool,
    queue: row.queue,
    body: parseJson(row.body),
    sentAt: toUtc(row.sent_at),
    deliveryCount: row.delivery_count,
  };
  if (row.claim_id !== null && row.fence !== null) {
    view.claimId = row.claim_id;
    view.fence = row.fence;
  }
  return view;
}

/** The answer for a spool the account does not have. */
export function spoolNotFound(): EngineError {
  return new EngineError('spool_not_found', 'No such spool.', 'spool');
}
