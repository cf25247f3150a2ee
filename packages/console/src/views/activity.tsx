import { useEffect, useState } from 'preact/hooks';
import type { Api, Schemas } from '../api.js';
import { followLeaseEvents } from '../event-stream.js';
import { ago, clockTime } from '../format.js';
import { useNow, usePoll } from '../use-poll.js';
import { ErrorLine } from './error-line.js';

/** At most this many events stay in the feed. */
const FEED_SIZE = 200;

function subject(event: Schemas['LeaseEvent']): string {
  if (event.kind === 'space') return `${event.key ?? ''} (${event.holder ?? ''})`;
  if (event.kind === 'task') return `task ${event.taskId ?? ''}`;
  return `${event.spool ?? ''}/${event.queue ?? ''}`;
}

/** The live feed of grants, releases, expirations and losses (server-sent events). */
export function Feed(props: { api: Api }) {
  const { api } = props;
  const [events, setEvents] = useState<Schemas['LeaseEvent'][]>([]);
  const [error, setError] = useState<unknown>(undefined);
  useEffect(() => {
    setEvents([]);
    return followLeaseEvents(
      api,
      (batch) => {
        setError(undefined);
        setEvents((old) => [...batch.reverse(), ...old].slice(0, FEED_SIZE));
      },
      setError,
    );
  }, [api]);
  return (
    <section aria-labelledby="feed-title">
      <h2 id="feed-title">Activity</h2>
      <ErrorLine error={error} />
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

/** Heartbeat rate per holder session: a fleet's health at a glance. */
export function Sessions(props: { api: Api }) {
  const { api } = props;
  const { value, error } = usePoll(async () => (await api.json<Schemas['SessionList']>('/v1/sessions?limit=100')).body.data, 2000, [api]);
  const now = useNow(() => api.serverNow(), 1000);
  return (
    <section aria-labelledby="sessions-title">
      <h2 id="sessions-title">Sessions</h2>
      <ErrorLine error={error} />
      <table class="sessions">
        <thead>
          <tr><th scope="col">Session</th><th scope="col">Heartbeats / min</th><th scope="col">Last heartbeat</th><th scope="col">Live leases</th></tr>
        </thead>
        <tbody>
          {value?.map((s) => (
            <tr key={s.holderSession} data-session={s.holderSession} class={s.leases > 0 && s.heartbeats === 0 ? 'warn' : ''}>
              <td><code>{s.holderSession}</code></td>
              <td class="rate">{s.heartbeats}</td>
              <td>{ago(s.lastHeartbeatAt, now)}</td>
              <td>{s.leases}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
