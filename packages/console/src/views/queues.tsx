import type { Api, Schemas } from '../api.js';
import { useNow, usePoll } from '../use-poll.js';
import { QueueChart } from './chart.js';
import { ErrorLine } from './error-line.js';
import { HeldBy } from './held-by.js';

/** A queue's statistics and, while it has leased messages, who holds them. */
interface QueueView {
  stats: Schemas['QueueStats'];
  activity: Schemas['QueueActivity'] | undefined;
}

const nameOf = (q: { spool: string; queue: string }) => `${q.spool}/${q.queue}`;

async function loadQueues(api: Api): Promise<QueueView[]> {
  const { body } = await api.json<Schemas['QueueStatsList']>('/v1/queues?limit=100');
  return Promise.all(
    body.data.map(async (stats) => ({
      stats,
      activity:
        stats.leased === 0 ? undefined
        : (await api.json<Schemas['QueueActivity']>(`/v1/spools/${encodeURIComponent(stats.spool)}/queues/${encodeURIComponent(stats.queue)}/activity?limit=100`)).body,
    })),
  );
}

/** Spools and queues: depth, leased, delayed, dead-lettered, lease timeout, a depth/throughput chart, and who holds each leased message. */
export function Queues(props: { api: Api }) {
  const { api } = props;
  const { value, error } = usePoll(() => loadQueues(api), 1000, [api]);
  const now = useNow(() => api.serverNow(), 250);
  return (
    <section aria-labelledby="queues-title">
      <h2 id="queues-title">Spools and queues</h2>
      <ErrorLine error={error} />
      {value !== undefined && value.length === 0 && <p class="muted">No queues yet.</p>}
      {value !== undefined && value.length > 0 && (
        <table class="queues">
          <thead>
            <tr><th scope="col">Spool / queue</th><th scope="col">Depth</th><th scope="col">Leased</th><th scope="col">Delayed</th><th scope="col">Dead-lettered</th><th scope="col">Lease timeout</th><th scope="col">Last 10 min (messages, acks)</th></tr>
          </thead>
          <tbody>
            {value.map(({ stats: q }) => (
              <tr key={nameOf(q)} data-queue={nameOf(q)}>
                <td><code>{q.spool}</code> / <code>{q.queue}</code></td>
                <td class="depth">{q.depth}</td>
                <td>{q.leased}</td>
                <td>{q.delayed}</td>
                <td>{q.deadLettered}</td>
                <td>{q.leaseTimeoutSeconds === null ? 'never' : `${q.leaseTimeoutSeconds} s`}</td>
                <td><QueueChart samples={q.samples} label={nameOf(q)} /></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {value?.map(({ activity }) => activity !== undefined && activity.leased.length > 0 && <HeldBy key={nameOf(activity)} activity={activity} now={now} />)}
    </section>
  );
}
