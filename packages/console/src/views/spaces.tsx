import type { Api, Schemas } from '../api.js';
import { ago, brief, countdown } from '../format.js';
import { useNow, usePoll } from '../use-poll.js';
import { ErrorLine } from './error-line.js';

/** At most this many spaces are shown with their claims. */
const MAX_SPACES = 20;

interface SpaceView {
  summary: Schemas['SpaceSummary'];
  activity: Schemas['SpaceActivity'];
}

async function loadSpaces(api: Api): Promise<SpaceView[]> {
  const { body } = await api.json<Schemas['SpaceList']>(`/v1/spaces?limit=${MAX_SPACES}`);
  return Promise.all(
    body.data.map(async (summary) => ({
      summary,
      activity: (await api.json<Schemas['SpaceActivity']>(`/v1/spaces/${summary.spaceId}/activity?limit=100`)).body,
    })),
  );
}

/** Spaces and their claims: holder, session, fence, a live countdown, details; waiters in order; recent losses. */
export function Spaces(props: { api: Api; control: boolean; onLose: (claimId: string) => void }) {
  const { api } = props;
  const { value, error } = usePoll(() => loadSpaces(api), 1000, [api]);
  const now = useNow(() => api.serverNow());
  return (
    <section aria-labelledby="spaces-title">
      <h2 id="spaces-title">Spaces and claims</h2>
      <ErrorLine error={error} />
      {value !== undefined && value.length === 0 && <p class="muted">No space holds, queues or lost a claim in the last 10 minutes.</p>}
      {value?.map(({ summary, activity }) => (
        <article class="space" key={summary.spaceId} data-space={summary.spaceId}>
          <h3>
            <code>{summary.spaceId}</code>{' '}
            <span class="muted">
              {summary.held} held · {summary.waiting} waiting · {summary.lost} lost
            </span>
          </h3>
          <table class="claims">
            <caption class="sr-only">Held claims</caption>
            <thead>
              <tr><th scope="col">Key</th><th scope="col">Holder</th><th scope="col">Session</th><th scope="col">Fence</th><th scope="col">Time left</th><th scope="col">Details</th>{props.control && <th scope="col">Lever</th>}</tr>
            </thead>
            <tbody>
              {activity.claims.map((claim) => (
                <tr key={claim.claimId} data-claim={claim.claimId}>
                  <td><code>{claim.key}</code></td>
                  <td class="holder">{claim.holder}</td>
                  <td><code>{claim.holderSession}</code></td>
                  <td>{claim.fence}</td>
                  <td class="countdown" data-expires-at={claim.expiresAt}>{countdown(claim.expiresAt, now)}</td>
                  <td><code>{brief(claim.details)}</code></td>
                  {props.control && <td><button type="button" onClick={() => props.onLose(claim.claimId)}>Lose lease</button></td>}
                </tr>
              ))}
            </tbody>
          </table>
          {activity.waiters.length > 0 && (
            <table class="waiters">
              <caption>Waiting</caption>
              <thead>
                <tr><th scope="col">Key</th><th scope="col">Position</th><th scope="col">Holder</th><th scope="col">Session</th><th scope="col">Gives up in</th></tr>
              </thead>
              <tbody>
                {activity.waiters.map((waiter) => (
                  <tr key={waiter.claimId} data-waiter={waiter.claimId}>
                    <td><code>{waiter.key}</code></td>
                    <td class="position">{waiter.position}</td>
                    <td class="holder">{waiter.holder}</td>
                    <td><code>{waiter.holderSession}</code></td>
                    <td>{countdown(waiter.expiresAt, now)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {activity.lost.length > 0 && (
            <table class="lost">
              <caption>Lost in the last 10 minutes</caption>
              <thead>
                <tr><th scope="col">Key</th><th scope="col">Holder</th><th scope="col">Session</th><th scope="col">Fence</th><th scope="col">Reason</th><th scope="col">When</th></tr>
              </thead>
              <tbody>
                {activity.lost.map((lost) => (
                  <tr key={lost.claimId} data-lost={lost.claimId}>
                    <td><code>{lost.key}</code></td>
                    <td class="holder">{lost.holder}</td>
                    <td><code>{lost.holderSession}</code></td>
                    <td>{lost.fence ?? '—'}</td>
                    <td><span class="badge bad">{lost.reason}</span></td>
                    <td>{ago(lost.lostAt, now)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </article>
      ))}
    </section>
  );
}
