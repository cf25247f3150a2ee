import { EngineError } from './errors.js';
import { decodeCursor, encodeCursor } from './space-keys.js';
import { requireInt } from './validation.js';

/** A message leased to a receiver now, and who holds it (wire `LeasedMessage`). */
export interface LeasedMessage {
  object: 'leased_message';
  messageId: string;
  claimId: string;
  holderSession: string | null;
  fence: number;
  deliveryCount: number;
  acquiredAt: number;
  expiresAt: number | null;
}

/** Who holds what in one queue now (wire `QueueActivity`). */
export interface QueueActivity {
  object: 'queue_activity';
  spool: string;
  queue: string;
  leased: LeasedMessage[];
  nextCursor: string | null;
}

/** A leased message with its place in its queue's send order (the page's key). */
export interface LeasedInOrder {
  /** The message's send sequence in its store: increases with every message sent. */
  readonly sendOrder: number;
  readonly view: LeasedMessage;
}

/**
 * A queue-activity page request: its size (1–100, default 50) and the send sequence its cursor
 * stands for (`invalid_request` naming `cursor` for one this API never returned).
 */
export function leasedPageQuery(params: { limit?: number | undefined; cursor?: string | undefined }): { afterOrder: number | undefined; limit: number } {
  const limit = requireInt(params.limit, 1, 100, 'limit', 50);
  if (params.cursor === undefined) return { limit, afterOrder: undefined };
  const key = decodeCursor(params.cursor);
  if (!/^(0|[1-9]\d{0,15})$/.test(key)) throw new EngineError('invalid_request', 'cursor is not one this API returned.', 'cursor');
  return { limit, afterOrder: Number(key) };
}

/**
 * The page of a queue's leased messages after `afterOrder`, oldest sent first, and its cursor.
 * `rows` holds at least the page and one more when there is one (the SQL store reads
 * `limit + 1`; the memory store passes them all); they need not be sorted.
 */
export function queueActivityPage(
  spool: string,
  queue: string,
  rows: readonly LeasedInOrder[],
  afterOrder: number | undefined,
  limit: number,
): QueueActivity {
  const rest = rows.filter((row) => afterOrder === undefined || row.sendOrder > afterOrder).sort((a, b) => a.sendOrder - b.sendOrder);
  const page = rest.slice(0, limit);
  const last = page[page.length - 1];
  return {
    object: 'queue_activity',
    spool,
    queue,
    leased: page.map((row) => row.view),
    nextCursor: rest.length > limit && last !== undefined ? encodeCursor(String(last.sendOrder)) : null,
  };
}
