/** Test helpers for this package's own suites (not exported). */

/** The demo keys of the reference server: ADMIN and READER share an account, OTHER does not. */
export const ADMIN = 'lh_test_admin';
export const OTHER = 'lh_test_other';
/** A space and two runs (any UUID names a space). */
export const SPACE = '6f1c2b9e-8d4a-4c1e-9b7a-3e2f1d0c9b8a';
export const SCOPE = '0b7e4c6a-1f2d-4e3b-8a9c-5d6e7f8a9b0c';

/** One answer, body parsed. */
export interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

/** Sends one JSON request with `fetch` (global by default, so MSW sees it). */
export async function call(
  method: string,
  url: string,
  options: { key?: string; body?: unknown; headers?: Record<string, string>; fetch?: typeof fetch } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { authorization: `Bearer ${options.key ?? ADMIN}`, ...options.headers };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const send = options.fetch ?? globalThis.fetch;
  const response = await send(url, {
    method,
    headers,
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

let counter = 0;

/** A fresh idempotency key. */
export function idem(): string {
  counter += 1;
  return `idem-${Date.now()}-${counter}`;
}

/** Acquires `key` in SPACE for SCOPE under `base`. */
export function acquire(base: string, key: string, options: { holder?: string; session?: string; wait?: boolean; leaseSeconds?: number; apiKey?: string } = {}): Promise<Answer> {
  return call('POST', `${base}/v1/spaces/${SPACE}/claims`, {
    key: options.apiKey ?? ADMIN,
    headers: { 'idempotency-key': idem() },
    body: {
      key,
      scopeId: SCOPE,
      holder: options.holder ?? 'worker-1',
      holderSession: options.session ?? 'sess_1',
      leaseSeconds: options.leaseSeconds ?? 30,
      ...(options.wait === undefined ? {} : { wait: options.wait }),
    },
  });
}

/** Sends a heartbeat for one session under `base`. */
export function heartbeat(base: string, session = 'sess_1', ttl: number | string = 30): Promise<Answer> {
  return call('POST', `${base}/v1/claims/heartbeat`, { body: { ttl, holderSession: session } });
}
