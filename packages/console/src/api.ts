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

  /** `403 permission_denied: The key lacks …`: the status, the code when there is one, the message. */
  describe(): string {
    return `${this.status}${this.code ? ` ${this.code}` : ''}: ${this.message}`;
  }
}

/**
 * Whether an answer refuses the key itself, not one call of it: 401 (missing, unknown, expired),
 * 402 (the account is suspended) or a 403 without a code (the key is blocked). A 403
 * `permission_denied` is a working key that may not make that call.
 */
export function refusesKey(error: unknown): error is ApiError {
  return error instanceof ApiError && (error.status === 401 || error.status === 402 || (error.status === 403 && error.code === undefined));
}

/** Read an error answer's envelope into an `ApiError`. */
async function apiErrorOf(response: Response): Promise<ApiError> {
  const text = await response.text();
  let envelope: { code?: string; message?: string } = {};
  try {
    envelope = (text === '' ? {} : JSON.parse(text)) as typeof envelope;
  } catch {
    // Not an envelope (a proxy's page): the status alone says it.
  }
  return new ApiError(response.status, envelope.code, envelope.message ?? `HTTP ${response.status}`);
}

/** A fresh `Idempotency-Key` (Web Crypto's random values: also on a page served over plain HTTP). */
export function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `console-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/**
 * The console's only way to the server: the public API under the base path the page was served
 * from, with the API key the user entered; it also tracks the server clock (from `Date`), so
 * countdowns are right on a manual clock too.
 */
export class Api {
  /** Server time minus browser time (ms), from the latest `Date` header. */
  offsetMs = 0;
  #refused = false;

  /** `onRefused` hears once when an answer refuses the key itself (see `refusesKey`). */
  constructor(
    readonly base: string,
    readonly key: string,
    private readonly onRefused: (error: ApiError) => void = () => undefined,
  ) {}

  /** The server's clock now, as far as the console knows it. */
  serverNow(): number {
    return Date.now() + this.offsetMs;
  }

  /** Call `path` (under the base) and answer its parsed JSON body (204: `undefined`). */
  async json<T>(path: string, init: { method?: string; body?: unknown; auth?: boolean; headers?: Record<string, string> } = {}): Promise<{ body: T; headers: Headers }> {
    const response = await this.raw(path, init);
    if (!response.ok) throw await this.failure(response, init.auth !== false);
    const text = await response.text();
    return { body: (text === '' ? undefined : JSON.parse(text)) as T, headers: response.headers };
  }

  /** The `ApiError` of a failed answer; one that refuses the key is reported to `onRefused`, once. */
  async failure(response: Response, withKey = true): Promise<ApiError> {
    const error = await apiErrorOf(response);
    if (withKey && refusesKey(error) && !this.#refused) {
      this.#refused = true;
      this.onRefused(error);
    }
    return error;
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

/**
 * Check a key once, before any panel calls with it: one cheap read (`GET /v1/tasks?limit=1`).
 * Answers the refusal when the server refuses the key itself, else `undefined` — a key that may
 * not read tasks (403 `permission_denied`) is still a key, and its panels say what it may not.
 */
export async function checkKey(base: string, key: string): Promise<ApiError | undefined> {
  try {
    await new Api(base, key).json('/v1/tasks?limit=1');
    return undefined;
  } catch (error) {
    if (refusesKey(error)) return error;
    if (error instanceof ApiError) return undefined;
    throw error;
  }
}

/** The API base of a console served at `<base>/console` (`''` at the root, `/api` under a mount). */
export function apiBaseOf(pathname: string): string {
  return pathname.replace(/\/console\/?$/, '');
}
