import { useState } from 'preact/hooks';
import { ApiError, type Api, type Schemas } from '../api.js';
import { lacksAdmin, runTaskAction, TASK_ACTIONS, type TaskAction } from '../task-actions.js';
import { useNow, usePoll } from '../use-poll.js';
import { ErrorLine } from './error-line.js';
import { TaskDetail } from './task-detail.js';
import { TaskRow } from './task-row.js';

const STATUSES = ['Todo', 'InProgress', 'Blocked', 'Done'] as const;

/** The list query of a filter: a status, `claimable` (Todo or stalled, past its backoff), or any. */
function listQuery(filter: string): string {
  if (filter === 'claimable') return '&claimable=true';
  return filter === '' ? '' : `&status=${filter}`;
}

function reasonOf(error: unknown): string {
  if (error instanceof ApiError) return error.describe();
  return error instanceof Error ? error.message : String(error);
}

function matches(task: Schemas['Task'], search: string): boolean {
  if (search === '') return true;
  const needle = search.toLowerCase();
  const sessions = [task.claim?.holderSession ?? '', task.lastClaim?.holderSession ?? ''];
  return [String(task.id), task.title, task.description, ...sessions, ...task.notes.map((n) => n.text)].some((text) => text.toLowerCase().includes(needle));
}

/**
 * Tasks by status with their attempts, claim and last claim (stalled ones marked); filter by
 * status or claimable, search, open one for its ETag; release a task's claim or requeue it (an
 * operator's key: `tasks:admin`). A key without that permission is told once, in one line, and
 * the buttons are switched off.
 */
export function Tasks(props: { api: Api; onDone: (message: string) => void }) {
  const { api, onDone } = props;
  const [filter, setFilter] = useState<string>('');
  const [search, setSearch] = useState('');
  const [open, setOpen] = useState<number | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [denied, setDenied] = useState<string | undefined>(undefined);
  const [failure, setFailure] = useState<string | undefined>(undefined);
  const { value, error, refresh } = usePoll(
    async () => (await api.json<Schemas['TaskList']>(`/v1/tasks?limit=100${listQuery(filter)}`)).body,
    2000,
    [api, filter],
  );
  const now = useNow(() => api.serverNow(), 250);
  const tasks = (value?.data ?? []).filter((task) => matches(task, search));
  const run = (taskId: number, action: TaskAction) => {
    setBusy(true);
    setFailure(undefined);
    runTaskAction(api, taskId, action)
      .then(
        () => onDone(`Task ${taskId}: ${TASK_ACTIONS[action].done}`),
        (failed: unknown) => {
          if (lacksAdmin(failed)) setDenied(`This key may not release or requeue tasks (it needs the tasks:admin permission): ${failed.describe()}`);
          else setFailure(`Task ${taskId}: could not ${TASK_ACTIONS[action].label.toLowerCase()}: ${reasonOf(failed)}`);
        },
      )
      .finally(() => {
        setBusy(false);
        refresh();
      });
  };
  const disabledBecause = denied !== undefined ? 'This key lacks tasks:admin' : busy ? 'Working…' : undefined;
  return (
    <section aria-labelledby="tasks-title">
      <h2 id="tasks-title">Tasks</h2>
      <div class="filters">
        <label>
          Status{' '}
          <select value={filter} onChange={(e) => setFilter((e.target as HTMLSelectElement).value)}>
            <option value="">any</option>
            <option value="claimable">claimable (Todo or stalled)</option>
            {STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
          </select>
        </label>{' '}
        <label>
          Search <input type="search" value={search} onInput={(e) => setSearch((e.target as HTMLInputElement).value)} placeholder="id, title, session, note" />
        </label>
        {value?.nextCursor !== null && value !== undefined && <span class="muted"> (first 100 shown)</span>}
      </div>
      <ErrorLine error={error} />
      {denied !== undefined && <p class="error" role="alert">{denied}</p>}
      {failure !== undefined && <p class="error" role="alert">{failure}</p>}
      <table class="tasks">
        <thead>
          <tr>
            <th scope="col">Id</th><th scope="col">Title</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Claimed by</th>
            <th scope="col">Claim expires in</th><th scope="col">Last claim</th><th scope="col">Notes</th><th scope="col">ETag</th><th scope="col">Operator</th>
          </tr>
        </thead>
        <tbody>
          {tasks.map((task) => (
            <TaskRow key={task.id} task={task} now={now} open={open === task.id} onToggle={() => setOpen(open === task.id ? undefined : task.id)} actions={{ disabledBecause, run }} />
          ))}
        </tbody>
      </table>
      {open !== undefined && <TaskDetail api={api} id={open} />}
    </section>
  );
}
