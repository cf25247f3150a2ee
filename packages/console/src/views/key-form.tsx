import { useState } from 'preact/hooks';

/** The key entry: one field, and one line saying why the last key was refused. */
export function KeyForm(props: { onKey: (key: string) => void; refusal: string; checking: boolean }) {
  const [key, setKey] = useState('');
  return (
    <form class="key-form" onSubmit={(e) => { e.preventDefault(); if (key.trim() !== '') props.onKey(key.trim()); }}>
      <label for="api-key">API key</label>{' '}
      <input id="api-key" name="api-key" type="password" autocomplete="off" required value={key} onInput={(e) => setKey((e.target as HTMLInputElement).value)} />{' '}
      <button type="submit" disabled={props.checking}>Open console</button>
      {props.checking && <span class="muted"> checking the key…</span>}
      {props.refusal !== '' && <p class="error" role="alert">{props.refusal}</p>}
      <p class="muted">The console checks the key once, then calls this server's public API with it and shows only what the key's account may see. The key stays in this tab (sessionStorage).</p>
    </form>
  );
}
