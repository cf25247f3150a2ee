import type { Api, Schemas } from '../api.js';
import { useNow, usePoll } from '../use-poll.js';
import { QueueChart } from './chart.js';
import { ErrorLine } from './error-line.js';

/** Spools and queues: depth, leased, delayed, dead-lettered, lease timeout, and a depth/throughput chart. */
export function Queues(props: { api: Api }) {
  const { api } = props;
  const { value, error } = usePoll(async () => (await api.json<Schemas['QueueStatsList']>('/v1/queues?limit=100')).body.data, 1000, [api]);
  useNow(() => api.serverNow(), 1000);
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
            {value.map((q) => (
              <tr key={`${q.spool}/${q.queue}`} data-queue={`${q.spool}/${q.queue}`}>
                <td><code>{q.spool}</code> / <code>{q.queue}</code></td>
                <td class="depth">{q.depth}</td>
                <td>{q.leased}</td>
                <td>{q.delayed}</td>
                <td>{q.deadLettered}</td>
                <td>{q.leaseTimeoutSeconds === null ? 'never' : `${q.leaseTimeoutSeconds} s`}</td>
                <td><QueueChart samples={q.samples} label={`${q.spool}/${q.queue}`} /></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
