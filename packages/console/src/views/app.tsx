import { useEffect, useMemo, useState } from 'preact/hooks';
import { Api, apiBaseOf } from '../api.js';
import { Feed, Sessions } from './activity.js';
import { Control, hasControl } from './control.js';
import { Queues } from './queues.js';
import { Spaces } from './spaces.js';
import { Tasks } from './tasks.js';

/** Where the key the user entered is kept: this tab only, gone when it closes. */
const KEY_STORAGE = 'leasehold.console.apiKey';

function KeyForm(props: { onKey: (key: string) => void }) {
  const [key, setKey] = useState('');
  return (
    <form class="key-form" onSubmit={(e) => { e.preventDefault(); if (key.trim() !== '') props.onKey(key.trim()); }}>
      <label for="api-key">API key</label>{' '}
      <input id="api-key" name="api-key" type="password" autocomplete="off" required value={key} onInput={(e) => setKey((e.target as HTMLInputElement).value)} />{' '}
      <button type="submit">Open console</button>
      <p class="muted">The console calls this server's public API with your key and shows only what the key's account may see. The key stays in this tab (sessionStorage).</p>
    </form>
  );
}

/** The console: key entry, then spaces and claims, the feed and sessions, queues, tasks, and the levers with `--control`. */
export function App() {
  const base = apiBaseOf(location.pathname);
  const [key, setKey] = useState<string | null>(() => sessionStorage.getItem(KEY_STORAGE));
  const [control, setControl] = useState(false);
  const [notice, setNotice] = useState('');
  const api = useMemo(() => (key === null ? undefined : new Api(base, key)), [base, key]);
  useEffect(() => {
    if (api !== undefined) void hasControl(api).then(setControl);
  }, [api]);
  const useKey = (next: string | null) => {
    if (next === null) sessionStorage.removeItem(KEY_STORAGE);
    else sessionStorage.setItem(KEY_STORAGE, next);
    setKey(next);
  };
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
        {api !== undefined && <button type="button" class="forget" onClick={() => useKey(null)}>Forget key</button>}
      </header>
      <main>
        {api === undefined ? <KeyForm onKey={useKey} /> : (
          <>
            <p class="notice" role="status">{notice}</p>
            {control && <Control api={api} onDone={setNotice} />}
            <div class="grid">
              <Spaces api={api} control={control} onLose={lose} />
              <div>
                <Feed api={api} />
                <Sessions api={api} />
              </div>
            </div>
            <Queues api={api} />
            <Tasks api={api} />
          </>
        )}
      </main>
    </>
  );
}
