import { useEffect, useState } from 'preact/hooks';

/** The latest answer of `load`, called now and every `everyMs` (and when `deps` change), or its error. */
export function usePoll<T>(load: () => Promise<T>, everyMs: number, deps: readonly unknown[]): { value: T | undefined; error: unknown } {
  const [state, setState] = useState<{ value: T | undefined; error: unknown }>({ value: undefined, error: undefined });
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
  }, deps);
  return state;
}

/** The time now, re-rendered every `everyMs` (countdowns). */
export function useNow(now: () => number, everyMs = 100): number {
  const [value, setValue] = useState(now());
  useEffect(() => {
    const timer = setInterval(() => setValue(now()), everyMs);
    return () => clearInterval(timer);
  }, [now, everyMs]);
  return value;
}
