import type { Api, Schemas } from '../api.js';
import { usePoll } from '../use-poll.js';
import { ErrorLine } from './error-line.js';

/** One task read on its own: the `ETag` a write must send, and its notes. */
export function TaskDetail(props: { api: Api; id: number }) {
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
