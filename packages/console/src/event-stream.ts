import type { Api, Schemas } from './api.js';

/** One parsed server-sent event. */
export interface StreamEvent {
  id: string | undefined;
  event: string;
  data: string;
}

/**
 * Parse a `text/event-stream` body (the WHATWG rules the console needs: `id`, `event`, `data`,
 * `retry`, comments): answers the events and the last `retry` in ms.
 */
export function parseEventStream(text: string): { events: StreamEvent[]; retryMs: number | undefined } {
  const events: StreamEvent[] = [];
  let retryMs: number | undefined;
  let id: string | undefined;
  let event = 'message';
  let data: string[] = [];
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === '') {
      if (data.length > 0) events.push({ id, event, data: data.join('\n') });
      id = undefined;
      event = 'message';
      data = [];
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') id = value;
    else if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
    else if (field === 'retry' && /^\d+$/.test(value)) retryMs = Number(value);
  }
  return { events, retryMs };
}

/**
 * Follow the lease events: `GET /v1/events/stream` with `Last-Event-ID`, again after each
 * answer's `retry` (what `EventSource` does, with the `Authorization` header it cannot send).
 * Answers a function that stops following.
 */
export function followLeaseEvents(api: Api, onEvents: (events: Schemas['LeaseEvent'][]) => void, onError: (error: unknown) => void): () => void {
  const controller = new AbortController();
  let lastId: string | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const next = async (): Promise<void> => {
    let waitMs = 1000;
    try {
      const response = await api.raw('/v1/events/stream?limit=100', {
        headers: lastId === undefined ? {} : { 'last-event-id': lastId },
        signal: controller.signal,
      });
      if (!response.ok) throw await api.failure(response);
      const { events, retryMs } = parseEventStream(await response.text());
      const batch = events.filter((e) => e.event === 'lease_event').map((e) => JSON.parse(e.data) as Schemas['LeaseEvent']);
      const last = events.at(-1)?.id;
      if (last !== undefined) lastId = last;
      if (batch.length > 0) onEvents(batch);
      // A full page: more are waiting, read on at once.
      waitMs = batch.length >= 100 ? 0 : (retryMs ?? 1000);
    } catch (error) {
      if (controller.signal.aborted) return;
      onError(error);
      waitMs = 3000;
    }
    if (!controller.signal.aborted) timer = setTimeout(() => void next(), waitMs);
  };
  void next();
  return () => {
    controller.abort();
    if (timer !== undefined) clearTimeout(timer);
  };
}
