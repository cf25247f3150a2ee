import type { Api, Schemas } from '../api.js';
import { ago } from '../format.js';
import { SESSION_STATES, sessionViews, type SessionSigns } from '../session-state.js';
import { useNow, usePoll } from '../use-poll.js';
import { ErrorLine } from './error-line.js';

/**
 * The holder sessions — those the server lists and those seen in the lease events — with their
 * heartbeat rate and leases, each marked live, idle, silent or dead (the legend says when).
 */
export function Sessions(props: { api: Api; signs: ReadonlyMap<string, SessionSigns> }) {
  const { api } = props;
  const { value, error } = usePoll(async () => (await api.json<Schemas['SessionList']>('/v1/sessions?limit=100')).body.data, 2000, [api]);
  const now = useNow(() => api.serverNow(), 1000);
  const rows = value === undefined ? [] : sessionViews(value, props.signs, now);
  return (
    <section aria-labelledby="sessions-title">
      <h2 id="sessions-title">Sessions</h2>
      <ErrorLine error={error} />
      <table class="sessions">
        <thead>
          <tr><th scope="col">Session</th><th scope="col">State</th><th scope="col">Heartbeats / min</th><th scope="col">Last heard from</th><th scope="col">Live leases</th></tr>
        </thead>
        <tbody>
          {rows.map(({ session, heardAt, state }) => (
            <tr key={session.holderSession} data-session={session.holderSession} data-state={state} class={`session-${state}`}>
              <td><code>{session.holderSession}</code></td>
              <td><span class={`badge ${state}`}>{state}</span></td>
              <td class="rate">{session.heartbeats}</td>
              <td>{ago(heardAt, now)}</td>
              <td>{session.leases}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <dl class="legend">
        {SESSION_STATES.map(({ state, meaning }) => (
          <div key={state}>
            <dt><span class={`badge ${state}`}>{state}</span></dt>
            <dd>{meaning}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
