import { useEffect, useState } from 'preact/hooks';
import { apiBaseOf } from '../api.js';
import { useKey } from '../use-key.js';
import { ActivityColumn } from './activity.js';
import { Control, hasControl } from './control.js';
import { KeyForm } from './key-form.js';
import { Queues } from './queues.js';
import { Spaces } from './spaces.js';
import { Tasks } from './tasks.js';

/**
 * The console: key entry (the key checked once), then spaces and claims, the feed and sessions,
 * queues and who holds their messages, tasks and the operator's actions, and the levers with
 * `--control`.
 */
export function App() {
  const base = apiBaseOf(location.pathname);
  const { api, refusal, checking, open, forget } = useKey(base);
  const [control, setControl] = useState(false);
  const [notice, setNotice] = useState('');
  useEffect(() => {
    setNotice('');
    if (api !== undefined) void hasControl(api).then(setControl);
  }, [api]);
  const lose = (claimId: string) => {
    if (api === undefined) return;
    api.json(`/_control/leases/${encodeURIComponent(claimId)}/lose`, { method: 'POST', auth: false }).then(
      () => setNotice(`Lease ${claimId} taken away`),
      (error: unknown) => setNotice(`Could not take ${claimId} away: ${String(error)}`),
    );
  };
  return (
    <>
      <header>
        <h1>Leasehold console</h1>
        <nav aria-label="Server pages">
          <a href={`${base}/`}>Home</a> · <a href={`${base}/docs`}>API reference</a> · <a href={`${base}/openapi.json`}>openapi.json</a>
        </nav>
        {api !== undefined && <button type="button" class="forget" onClick={forget}>Forget key</button>}
      </header>
      <main>
        {api === undefined ? <KeyForm onKey={open} refusal={refusal} checking={checking} /> : (
          <>
            <p class="notice" role="status">{notice}</p>
            {control && <Control api={api} onDone={setNotice} />}
            <div class="grid">
              <Spaces api={api} control={control} onLose={lose} />
              <ActivityColumn api={api} />
            </div>
            <Queues api={api} />
            <Tasks api={api} onDone={setNotice} />
          </>
        )}
      </main>
    </>
  );
}
