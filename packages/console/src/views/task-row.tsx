import type { Schemas } from '../api.js';
import { ago, countdown } from '../format.js';
import { TASK_ACTIONS, type TaskAction } from '../task-actions.js';

/** How the task's last claim ended, by whom, and when the retry backoff lets workers take it again. */
function LastClaim(props: { task: Schemas['Task']; now: number }) {
  const { lastClaim, availableUtc } = props.task;
  if (lastClaim === null) return <td class="last-claim">never claimed</td>;
  const available = availableUtc === null ? null : Date.parse(availableUtc);
  return (
    <td class="last-claim">
      <span class={`badge ${lastClaim.outcome}`}>{lastClaim.outcome}</span> <code>{lastClaim.holderSession ?? 'no session'}</code>
      {lastClaim.endedUtc !== null && <span class="muted"> {ago(Date.parse(lastClaim.endedUtc), props.now)}</span>}
      {available !== null && available > props.now && <span class="muted"> · retry in {countdown(available, props.now)}</span>}
    </td>
  );
}

/** What a row's buttons may do: which actions apply, whether they are allowed now, and why not. */
export interface RowActions {
  /** `undefined` when the buttons work; else why they are off (a tooltip). */
  readonly disabledBecause: string | undefined;
  readonly run: (taskId: number, action: TaskAction) => void;
}

/** One task: status (stalled marked), attempts, the live claim, the last claim, notes, the ETag toggle and the operator's actions. */
export function TaskRow(props: { task: Schemas['Task']; now: number; open: boolean; onToggle: () => void; actions: RowActions }) {
  const { task, now, actions } = props;
  const applicable: TaskAction[] = [...(task.claim !== null ? (['release'] as const) : []), ...(task.status !== 'Done' ? (['requeue'] as const) : [])];
  return (
    <tr data-task={task.id} class={task.stalled ? 'stalled' : ''}>
      <td>{task.id}</td>
      <td>{task.title}</td>
      <td>
        <span class={`badge ${task.status}`}>{task.status}</span>
        {task.stalled && <> <span class="badge stalled" title="InProgress with no live claim: its worker is gone; claimable again">stalled</span></>}
      </td>
      <td class="attempts">{task.attempts}</td>
      <td><code>{task.claim?.holderSession ?? '—'}</code></td>
      <td>{task.claim ? countdown(Date.parse(task.claim.expiresUtc), now) : '—'}</td>
      <LastClaim task={task} now={now} />
      <td>{task.notes.length}</td>
      <td><button type="button" aria-expanded={props.open} onClick={props.onToggle}>{props.open ? 'Hide' : 'Show'}</button></td>
      <td class="actions">
        {applicable.map((action) => (
          <button key={action} type="button" disabled={actions.disabledBecause !== undefined} title={actions.disabledBecause} onClick={() => actions.run(task.id, action)}>
            {TASK_ACTIONS[action].label}
          </button>
        ))}
      </td>
    </tr>
  );
}
