/**
 * The wait a response asks for, in ms: `retry-after-ms` (milliseconds) first, else `Retry-After`
 * as delay-seconds or an HTTP-date (relative to `nowMs`, wall-clock epoch ms). A date in the past
 * gives 0; a missing or unparsable header gives `undefined`. Headers are lowercase-named.
 */
export function parseRetryAfter(headers: Readonly<Record<string, string>>, nowMs: number): number | undefined {
  const ms = headers['retry-after-ms']?.trim();
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return Number(ms);

  const value = headers['retry-after']?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  // Every HTTP-date form (IMF-fixdate, RFC 850, asctime) starts with a day name.
  if (!/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,?\s/i.test(value)) return undefined;
  const at = Date.parse(value);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}
