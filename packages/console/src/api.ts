import type { components } from '@leasehold/protocol';

/** The wire schemas the console reads. */
export type Schemas = components['schemas'];

/** A failed call: the HTTP status and the error envelope's code and message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The console's only way to the server: the public API under the base path the page was served
 * from, with the API key the user entered; it also tracks the server clock (from `Date`), so
 * countdowns are right on a manual clock too.
 */
export class Api {
  /** Server time minus browser time (ms), from the latest `Date` header. */
  offsetMs = 0;

  constructor(
    readonly base: string,
    readonly key: string,
  ) {}

  /** The server's clock now, as far as the console knows it. */
  serverNow(): number {
    return Date.now() + this.offsetMs;
  }

  /** Call `path` (under the base) and answer its parsed JSON body (204: `undefined`). */
  async json<T>(path: string, init: { method?: string; body?: unknown; auth?: boolean } = {}): Promise<{ body: T; headers: Headers }> {
    const response = await this.raw(path, init);
    const text = await response.text();
    const body = text === '' ? undefined : (JSON.parse(text) as unknown);
    if (!response.ok) {
      const envelope = (body ?? {}) as { code?: string; message?: string };
      throw new ApiError(response.status, envelope.code, envelope.message ?? `HTTP ${response.status}`);
    }
    return { body: body as T, headers: response.headers };
  }

  /** The raw response of a call (for streams), with the key unless `auth` is false. */
  async raw(path: string, init: { method?: string; body?: unknown; auth?: boolean; headers?: Record<string, string>; signal?: AbortSignal } = {}): Promise<Response> {
    const headers: Record<string, string> = { ...init.headers };
    if (init.auth !== false) headers.authorization = `Bearer ${this.key}`;
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(this.base + path, {
      method: init.method ?? 'GET',
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: init.signal,
      cache: 'no-store',
    });
    const date = response.headers.get('date');
    // `Date` has whole seconds: the true time lies in the second after it.
    if (date !== null) this.offsetMs = Date.parse(date) + 500 - Date.now();
    return response;
  }
}

/** The API base of a console served at `<base>/console` (`''` at the root, `/api` under a mount). */
export function apiBaseOf(pathname: string): string {
  return pathname.replace(/\/console\/?$/, '');
}
