import type { LeaseEventList } from '../../engine/index.js';
import type { HandlerResult } from '../answer.js';
import type { ApiHandlers } from '../handler.js';
import { mapMaybe } from '../maybe.js';

/** How long `EventSource` waits before it asks for the events after the last one it saw. */
export const SSE_RETRY_MS = 1000;

/**
 * A page of lease events as a `text/event-stream` answer: one `id`/`event`/`data` block per
 * event, then `retry`, so `EventSource` comes back with `Last-Event-ID` a second later (a
 * comment line stands in when nothing is new).
 */
export function eventStreamOf(list: LeaseEventList): HandlerResult {
  let text = list.data.length === 0 ? ': no new lease events\n\n' : '';
  for (const event of list.data) text += `id: ${event.id}\nevent: lease_event\ndata: ${JSON.stringify(event)}\n\n`;
  text += `retry: ${SSE_RETRY_MS}\n\n`;
  return { status: 200, text, headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store' } };
}

/** Handlers of the read-only activity views (the console's reads). */
export const activityHandlers = {
  listSpaces: (ops, { credential, input: { query } }) => mapMaybe(ops.activity.listSpaces({ credential, ...query }), (list) => ({ status: 200, body: list })),

  getSpaceActivity: (ops, { credential, input: { path, query } }) =>
    mapMaybe(ops.activity.spaceActivity({ credential, spaceId: path.spaceId, ...query }), (activity) => ({ status: 200, body: activity })),

  listQueueStats: (ops, { credential, input: { query } }) => mapMaybe(ops.activity.queueStats({ credential, ...query }), (list) => ({ status: 200, body: list })),

  getQueueActivity: (ops, { credential, input: { path, query } }) =>
    mapMaybe(ops.activity.queueActivity({ credential, spool: path.spool, queue: path.queue, ...query }), (activity) => ({ status: 200, body: activity })),

  listLeaseEvents: (ops, { credential, input: { query } }) => mapMaybe(ops.activity.events({ credential, ...query }), (list) => ({ status: 200, body: list })),

  streamLeaseEvents: (ops, { credential, input: { query, headers } }) =>
    mapMaybe(ops.activity.events({ credential, limit: query.limit, cursor: headers['Last-Event-ID'] ?? query.cursor }), eventStreamOf),

  listSessions: (ops, { credential, input: { query } }) => mapMaybe(ops.activity.sessions({ credential, ...query }), (list) => ({ status: 200, body: list })),
} satisfies Partial<ApiHandlers>;
