import type { Api, Schemas } from '../api.js';
import { clockTime } from '../format.js';
import { useLeaseEvents } from '../use-lease-events.js';
import { ErrorLine } from './error-line.js';
import { Sessions } from './sessions.js';

function subject(event: Schemas['LeaseEvent']): string {
  if (event.kind === 'space') return `${event.key ?? ''} (${event.holder ?? ''})`;
  if (event.kind === 'task') return `task ${event.taskId ?? ''}`;
  return `${event.spool ?? ''}/${event.queue ?? ''}`;
}

/** The live feed of grants, releases, expirations and losses (server-sent events). */
function Feed(props: { events: Schemas['LeaseEvent'][]; error: unknown }) {
  const { events } = props;
  return (
    <section aria-labelledby="feed-title">
      <h2 id="feed-title">Activity</h2>
      <ErrorLine error={props.error} />
      <ol class="feed" aria-live="polite">
        {events.map((event) => (
          <li key={event.id} data-event={event.type} data-claim={event.claimId}>
            <span class="muted">{clockTime(event.at)}</span> <span class={`badge ${event.type}`}>{event.type}</span> {event.kind}{' '}
            <code>{subject(event)}</code>
            {event.fence !== null && <span class="muted"> fence {event.fence}</span>}
            {event.reason !== null && <span class="muted"> — {event.reason}</span>}
          </li>
        ))}
      </ol>
      {events.length === 0 && <p class="muted">No lease events in the last 10 minutes.</p>}
    </section>
  );
}

/** The feed and the holder sessions, which read one stream of lease events. */
export function ActivityColumn(props: { api: Api }) {
  const { events, error, signs } = useLeaseEvents(props.api);
  return (
    <div>
      <Feed events={events} error={error} />
      <Sessions api={props.api} signs={signs} />
    </div>
  );
}
