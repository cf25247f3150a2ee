import { useState } from 'preact/hooks';
import type { Api, Schemas } from '../api.js';
import { clockTime } from '../format.js';
import { usePoll } from '../use-poll.js';
import { ErrorLine } from './error-line.js';

/** The test levers of a server started with `--control` (`/_control`, no API key): poke a running worker by hand. */
export function Control(props: { api: Api; onDone: (message: string) => void }) {
  const { api, onDone } = props;
  const clock = usePoll(async () => (await api.json<Schemas['ControlClock']>('/_control/clock', { auth: false })).body, 1000, [api]);
  const [error, setError] = useState<unknown>(undefined);
  const [spaceId, setSpaceId] = useState('');
  const [scopeId, setScopeId] = useState('');
  const [faultStatus, setFaultStatus] = useState('503');
  const [faultTimes, setFaultTimes] = useState('3');
  const [faultOperation, setFaultOperation] = useState('');
  const lever = async (what: string, path: string, method: string, body?: unknown) => {
    try {
      const { body: answer } = await api.json<Schemas['ControlResult'] | undefined>(path, { method, body, auth: false });
      setError(undefined);
      onDone(`${what}: done${answer && 'affected' in answer ? ` (${answer.affected} affected)` : ''}`);
    } catch (failure) {
      setError(failure);
    }
  };
  const manual = clock.value?.mode === 'manual';
  return (
    <section aria-labelledby="control-title" class="control">
      <h2 id="control-title">Test levers</h2>
      <p class="muted">
        Clock: {clock.value?.mode ?? '…'}
        {clock.value?.now !== undefined && ` at ${clockTime(clock.value.now)} UTC`}
      </p>
      <ErrorLine error={error ?? clock.error} />
      <div class="levers">
        {[1_000, 10_000, 60_000].map((ms) => (
          <button key={ms} type="button" disabled={!manual} onClick={() => void lever(`Advance ${ms / 1000} s`, '/_control/clock/advance', 'POST', { ms })}>
            Advance clock {ms / 1000} s
          </button>
        ))}
        <button type="button" onClick={() => void lever('Primary change', '/_control/primary-change', 'POST')}>Simulate a primary change</button>
      </div>
      <form class="levers" onSubmit={(e) => { e.preventDefault(); void lever('Fault', '/_control/faults', 'POST', faultRule(faultStatus, faultTimes, faultOperation)); }}>
        <label>Fault status <input size={4} value={faultStatus} inputMode="numeric" onInput={(e) => setFaultStatus((e.target as HTMLInputElement).value)} /></label>
        <label>for the next <input size={4} value={faultTimes} inputMode="numeric" onInput={(e) => setFaultTimes((e.target as HTMLInputElement).value)} /> requests</label>
        <label>
          to operation <input size={20} value={faultOperation} placeholder="any (this console's too)" onInput={(e) => setFaultOperation((e.target as HTMLInputElement).value)} />
        </label>
        <button type="submit">Inject fault</button>
        <button type="button" onClick={() => void lever('Clear faults', '/_control/faults', 'DELETE')}>Clear faults</button>
      </form>
      <form class="levers" onSubmit={(e) => { e.preventDefault(); void lever('Cancel run', '/_control/scopes/cancel', 'POST', { spaceId, scopeId }); }}>
        <label>Space <input size={36} value={spaceId} onInput={(e) => setSpaceId((e.target as HTMLInputElement).value)} /></label>
        <label>Run (scope) <input size={36} value={scopeId} onInput={(e) => setScopeId((e.target as HTMLInputElement).value)} /></label>
        <button type="submit">Cancel run</button>
      </form>
    </section>
  );
}

/**
 * The fault rule the form describes. Without an operation the rule hits the next requests of any
 * operation, and this console's own polling is among them; the server refuses an unknown operation
 * id and names the nearest ones.
 */
function faultRule(status: string, times: string, operationId: string): Schemas['FaultRule'] {
  const operation = operationId.trim();
  return { status: Number(status), times: Number(times), ...(operation ? { operationId: operation } : {}) };
}

/** Whether the server serves the levers (started with `--control`). */
export async function hasControl(api: Api): Promise<boolean> {
  try {
    const response = await api.raw('/_control/clock', { auth: false });
    return response.ok;
  } catch {
    return false;
  }
}
