import { assertSendable } from '../../internal/argument-checks.js';

/** A query parameter value; `undefined`/`null` leave the parameter out, arrays repeat it. */
export type QueryValue = string | number | boolean | null | undefined | ReadonlyArray<string | number | boolean>;

/**
 * Joins a base URL (which may carry a prefix such as `https://host/api`) with an API path and a
 * query. The path is used as given: encode its segments with {@link encodePath}.
 * @example
 * buildUrl('https://host/api/', '/v1/claims/heartbeat', { limit: 10 }); // https://host/api/v1/claims/heartbeat?limit=10
 */
export function buildUrl(baseUrl: string, path: string, query?: Readonly<Record<string, QueryValue>>): string {
  const base = trimBase(baseUrl);
  const url = `${base}${path.startsWith('/') ? path : `/${path}`}`;
  if (!query) return url;
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) {
      const text = String(item);
      if (typeof item === 'string') assertSendable(text, name, 'query');
      params.append(name, text);
    }
  }
  const search = params.toString();
  return search === '' ? url : `${url}${url.includes('?') ? '&' : '?'}${search}`;
}

/** The last base URL trimmed, and the result (a client always passes the same one). */
let lastBase = '';
let lastTrimmed = '';

function trimBase(baseUrl: string): string {
  if (baseUrl !== lastBase) {
    lastTrimmed = baseUrl.replace(/\/+$/, '');
    lastBase = baseUrl;
  }
  return lastTrimmed;
}

/**
 * A template tag that percent-encodes every interpolated path segment (so a claim key
 * `reports/2026-11` becomes one segment, `reports%2F2026-11`). A segment that cannot be sent
 * losslessly — one with a lone surrogate, or `.` / `..` (URL parsing resolves those away, even
 * percent-encoded) — is refused with an `InvalidArgumentError` before anything is sent.
 * @example
 * encodePath`/v1/spaces/${spaceId}/claims/${key}/renew`
 */
export function encodePath(strings: TemplateStringsArray, ...values: ReadonlyArray<string | number>): string {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) {
    const segment = String(values[i]);
    assertSendable(segment, 'path segment', 'path');
    out += encodeURIComponent(segment) + (strings[i + 1] ?? '');
  }
  return out;
}
