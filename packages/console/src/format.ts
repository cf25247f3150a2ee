/** Seconds left until `at` (server time), as `12.3 s`, `4 min 05 s`, or `expired`. */
export function countdown(at: number | null | undefined, now: number): string {
  if (at === null || at === undefined) return 'never';
  const left = at - now;
  if (left <= 0) return 'expired';
  if (left < 60_000) return `${(left / 1000).toFixed(1)} s`;
  const seconds = Math.floor(left / 1000);
  return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
}

/** How long ago `at` was (server time): `3 s ago`, `2 min ago`. */
export function ago(at: number | null | undefined, now: number): string {
  if (at === null || at === undefined) return '—';
  const seconds = Math.max(0, Math.round((now - at) / 1000));
  return seconds < 60 ? `${seconds} s ago` : `${Math.floor(seconds / 60)} min ago`;
}

/** A server time as `HH:MM:SS` (UTC: the server's clock may be a manual one far from now). */
export function clockTime(at: number): string {
  return new Date(at).toISOString().slice(11, 19);
}

/** A JSON value on one line, cut at `max` characters. */
export function brief(value: unknown, max = 80): string {
  if (value === null || value === undefined) return '—';
  const text = JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
