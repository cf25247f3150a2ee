import { useEffect, useState } from 'preact/hooks';

/**
 * The latest answer of `load`, called now and every `everyMs` (and when `deps` change), or its
 * error; `refresh` loads again at once (after a write the panel shows).
 */
export function usePoll<T>(load: () => Promise<T>, everyMs: number, deps: readonly unknown[]): { value: T | undefined; error: unknown; refresh: () => void } {
  const [state, setState] = useState<{ value: T | undefined; error: unknown }>({ value: undefined, error: undefined });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = async () => {
      try {
        const value = await load();
        if (!stopped) setState({ value, error: undefined });
      } catch (error) {
        if (!stopped) setState((old) => ({ value: old.value, error }));
      }
      if (!stopped) timer = setTimeout(() => void tick(), everyMs);
    };
    void tick();
    return () => {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
    };
  }, [...deps, round]);
  return { ...state, refresh: () => setRound((n) => n + 1) };
}

/** The time now, read at every render and re-rendered every `everyMs` (countdowns). */
export function useNow(now: () => number, everyMs = 100): number {
  const [, setTicks] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => setTicks((n) => n + 1), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now();
}
