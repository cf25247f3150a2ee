import { useEffect, useMemo, useState } from 'preact/hooks';
import { Api, checkKey, type ApiError } from './api.js';

/** Where the key the user entered is kept: this tab only, gone when it closes. */
const KEY_STORAGE = 'leasehold.console.apiKey';

/** The console's key: the checked one in use, or why there is none. */
export interface KeyState {
  /** The API with the key in use; `undefined` until a key passed its check. */
  readonly api: Api | undefined;
  /** Why the last key was refused, as one line (`''`: nothing to say). */
  readonly refusal: string;
  /** True while a key is being checked. */
  readonly checking: boolean;
  /** Check `key` once and use it if the server takes it. */
  readonly open: (key: string) => void;
  /** Stop using the key (and forget it in this tab). */
  readonly forget: () => void;
}

function refusalOf(error: ApiError): string {
  return `This key was refused: ${error.describe()}`;
}

/**
 * The key, checked once when the console opens (`checkKey`: one read) — the one entered, or the
 * one this tab kept — so a wrong key gets one line on the key form instead of a refusal in every
 * panel; and dropped, with that line, when a later answer refuses it (expired, blocked,
 * suspended while the console is open).
 */
export function useKey(base: string): KeyState {
  const [key, setKey] = useState<string | null>(null);
  const [refusal, setRefusal] = useState('');
  const [checking, setChecking] = useState(false);
  const use = (next: string | null, why = '') => {
    if (next === null) sessionStorage.removeItem(KEY_STORAGE);
    else sessionStorage.setItem(KEY_STORAGE, next);
    setKey(next);
    setRefusal(why);
  };
  const open = (candidate: string) => {
    setChecking(true);
    checkKey(base, candidate).then(
      (refused) => use(refused === undefined ? candidate : null, refused === undefined ? '' : refusalOf(refused)),
      (error: unknown) => use(null, `Could not reach the server: ${error instanceof Error ? error.message : String(error)}`),
    ).finally(() => setChecking(false));
  };
  useEffect(() => {
    const kept = sessionStorage.getItem(KEY_STORAGE);
    if (kept !== null) open(kept);
  }, [base]);
  const api = useMemo(() => (key === null ? undefined : new Api(base, key, (error) => use(null, refusalOf(error)))), [base, key]);
  return { api, refusal, checking, open, forget: () => use(null) };
}
