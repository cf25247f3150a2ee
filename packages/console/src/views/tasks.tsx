import { useState } from 'preact/hooks';
import type { Api, Schemas } from '../api.js';
import { countdown } from '../format.js';
import { useNow, usePoll } from '../use-poll.js';
import { ErrorLine } from './error-line.js';

const STATUSES = ['Todo', 'InProgress', 'Blocked', 'Done'] as const;

function matches(task: Schemas['Task'], search: string): boolean {
  if (search === '') return true;
  const needle = search.toLowerCase();
  return [String(task.id), task.title, task.description, task.claim?.holderSession ?? '', ...task.notes.map((n) => n.text)].some((text) =>
    text.toLowerCase().includes(needle),
  );
}

/** One task read on its own: the `ETag` a write must send, and its notes. */
function TaskDetail(props: { api: Api; id: number }) {
  const { value, error } = usePoll(async () => {
    const { body, headers } = await props.api.json<Schemas['Task']>(`/v1/tasks/${props.id}`);
    return { task: body, etag: headers.get('etag') };
  }, 2000, [props.api, props.id]);
  if (value === undefined) return <ErrorLine error={error} />;
  return (
    <div class="detail" aria-live="polite">
      <p>
        Task {value.task.id}: ETag <code class="etag">{value.etag}</code>, version {value.task.version}
      </p>
      {value.task.notes.length === 0 ? <p class="muted">No notes.</p> : (
        <ul>{value.task.notes.map((note) => <li key={note.id}><span class="muted">{note.createdUtc}</span> {note.text}</li>)}</ul>
      )}
    </div>
  );
}

/** Tasks by status with their claim holder, expiry and notes; filter by status, search, open one for its ETag. */
export function Tasks(props: { api: Api }) {
  const { api } = props;
  const [status, setStatus] = useState<string>('');
  const [search, setSearch] = useState('');
  const [open, setOpen] = useState<number | undefined>(undefined);
  const { value, error } = usePoll(
    async () => (await api.json<Schemas['TaskList']>(`/v1/tasks?limit=100${status ? `&status=${status}` : ''}`)).body,
    2000,
    [api, status],
  );
  const now = useNow(() => api.serverNow(), 1000);
  const tasks = (value?.data ?? []).filter((task) => matches(task, search));
  return (
    <section aria-labelledby="tasks-title">
      <h2 id="tasks-title">Tasks</h2>
      <div class="filters">
        <label>
          Status{' '}
          <select value={status} onChange={(e) => setStatus((e.target as HTMLSelectElement).value)}>
            <option value="">any</option>
            {STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
          </select>
        </label>{' '}
        <label>
          Search <input type="search" value={search} onInput={(e) => setSearch((e.target as HTMLInputElement).value)} placeholder="id, title, session, note" />
        </label>
        {value?.nextCursor !== null && value !== undefined && <span class="muted"> (first 100 shown)</span>}
      </div>
      <ErrorLine error={error} />
      <table class="tasks">
        <thead>
          <tr><th scope="col">Id</th><th scope="col">Title</th><th scope="col">Status</th><th scope="col">Claimed by</th><th scope="col">Claim expires in</th><th scope="col">Notes</th><th scope="col">ETag</th></tr>
        </thead>
        <tbody>
          {tasks.map((task) => (
            <tr key={task.id} data-task={task.id}>
              <td>{task.id}</td>
              <td>{task.title}</td>
              <td><span class={`badge ${task.status}`}>{task.status}</span></td>
              <td><code>{task.claim?.holderSession ?? '—'}</code></td>
              <td>{task.claim ? countdown(Date.parse(task.claim.expiresUtc), now) : '—'}</td>
              <td>{task.notes.length}</td>
              <td><button type="button" aria-expanded={open === task.id} onClick={() => setOpen(open === task.id ? undefined : task.id)}>{open === task.id ? 'Hide' : 'Show'}</button></td>
            </tr>
          ))}
        </tbody>
      </table>
      {open !== undefined && <TaskDetail api={api} id={open} />}
    </section>
  );
}
