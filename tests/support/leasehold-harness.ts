import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import {
  DEFAULT_KEYS,
  createLeaseholdServer,
  listen,
  type KeyConfig,
  type LeaseholdServer,
  type LeaseholdServerOptions,
  type NodeListener,
  type ServerControl,
  type Store,
} from '../../packages/server/src/index.js';
import { openTestStore, type TestStore } from './test-store.js';
import { contractProblems, observe, type ObservedResponse } from './response-contract.js';
import { listOperations, resolveRef, schemaErrors, type Parameter } from './spec-validator.js';

/** The demo keys: `ADMIN` and `READER` share `acct_demo`, `OTHER` is `acct_other`. */
export const ADMIN = 'lh_test_admin';
export const READER = 'lh_test_reader';
export const OTHER = 'lh_test_other';
export const DEMO_ACCOUNT = 'acct_demo';

/** Spaces and runs used across the suites (any UUID names a space of the caller's account). */
export const SPACE = '6f1c2b9e-8d4a-4c1e-9b7a-3e2f1d0c9b8a';
export const SPACE_B = '9a4d1c2e-3b5f-4a6d-8e7f-0a1b2c3d4e5f';
export const SCOPE = '0b7e4c6a-1f2d-4e3b-8a9c-5d6e7f8a9b0c';
export const SCOPE_B = '1c8f5d7b-2a3e-4f4c-9b0d-6e7f8a9b0c1d';

/** The envelope `type` each error status must carry (api-brief, "One error envelope"). */
export const ERROR_TYPE_BY_STATUS: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'payment_required_error',
  403: 'permission_error',
  404: 'not_found_error',
  405: 'invalid_request_error',
  409: 'conflict_error',
  410: 'gone_error',
  412: 'precondition_error',
  413: 'invalid_request_error',
  415: 'invalid_request_error',
  422: 'invalid_request_error',
  428: 'invalid_request_error',
  429: 'rate_limit_error',
  500: 'api_error',
  503: 'unavailable_error',
};

const operations = new Map(listOperations().map((entry) => [entry.operation.operationId, entry]));

function requiresIdempotencyKey(operationId: string): boolean {
  const entry = operations.get(operationId);
  return (entry?.operation.parameters ?? []).some((ref) => {
    const parameter = resolveRef<Parameter>(ref);
    return parameter.in === 'header' && parameter.name === 'Idempotency-Key' && parameter.required === true;
  });
}

/** How to call one operation. */
export interface CallOptions {
  /** Path parameters; each is percent-encoded (`/` becomes `%2F`). */
  path?: Record<string, string | number>;
  query?: Record<string, string | number>;
  headers?: Record<string, string>;
  /** A JSON body (sent with `Content-Type: application/json` unless `headers` names another). */
  json?: unknown;
  /** A raw body, sent as is. */
  body?: string | Uint8Array<ArrayBuffer>;
  /** The API key (default `ADMIN`); `null` sends no `Authorization`. */
  key?: string | null;
  /**
   * The `Idempotency-Key`. Default: a fresh key for operations that require one, none otherwise;
   * `null` never sends one.
   */
  idempotencyKey?: string | null;
}

/** An answer whose status, headers and body passed the shared contract check. */
export interface Answer extends ObservedResponse {
  operationId: string;
  // Tests read bodies by field; the contract check has already validated their shape.
  body: any;
}

/** Describes an answer for assertion messages. */
export function describeAnswer(answer: ObservedResponse & { operationId?: string }): string {
  return `${answer.operationId ?? ''} → ${answer.status} ${JSON.stringify(answer.body)}`;
}

const TOKEN_PATTERN = /lht_[A-Za-z0-9_-]{8,}|sl_[A-Za-z0-9_-]{8,}|lh_test_[a-z]+/;

/**
 * The shared contract check: `contractProblems` (declared status, schema of the body, declared
 * headers, `Request-Id`, `Date`, `request_id` equal to `Request-Id`), plus the brief's rules
 * for every error: its `type` matches its status and its message carries no key or token.
 */
export function expectContract(operationId: string, observed: ObservedResponse): void {
  expect(contractProblems(operationId, observed), `${operationId} → ${observed.status} ${JSON.stringify(observed.body)}`).toEqual([]);
  if (observed.status >= 400) {
    const envelope = observed.body as { type?: string; message?: string };
    expect(envelope.type, `${operationId} ${observed.status} envelope type`).toBe(ERROR_TYPE_BY_STATUS[observed.status]);
    expect(envelope.message ?? '', 'error messages never carry keys or tokens').not.toMatch(TOKEN_PATTERN);
  }
}

/**
 * The check for answers outside any operation (unknown routes, wrong methods, base-path misses):
 * the canonical envelope, `Request-Id` (equal to `request_id`) and `Date`.
 */
export function envelopeProblems(observed: ObservedResponse, typeForStatus = ERROR_TYPE_BY_STATUS[observed.status]): string[] {
  const problems = schemaErrors({ $ref: '#/components/schemas/ErrorEnvelope' }, observed.body).map((e) => `body ${e}`);
  const requestId = observed.headers.get('request-id');
  if (!requestId) problems.push('missing Request-Id header');
  if (!observed.headers.get('date')) problems.push('missing Date header');
  const envelope = observed.body as { request_id?: string; type?: string } | undefined;
  if (envelope?.request_id !== requestId) problems.push('request_id differs from the Request-Id header');
  if (typeForStatus !== undefined && envelope?.type !== typeForStatus) problems.push(`type ${envelope?.type} for ${observed.status}`);
  return problems;
}

/** Asserts an error answer: its status, its `code` (`null`: no code at all) and optionally `param`. */
export function expectError(answer: Answer, status: number, code?: string | null, param?: string): void {
  expect(answer.status, describeAnswer(answer)).toBe(status);
  if (code === null) expect(answer.body, describeAnswer(answer)).not.toHaveProperty('code');
  else if (code !== undefined) expect(answer.body.code, describeAnswer(answer)).toBe(code);
  if (param !== undefined) expect(answer.body.param, describeAnswer(answer)).toBe(param);
}

/** Asserts a success status. */
export function expectStatus(answer: Answer, status: number): void {
  expect(answer.status, describeAnswer(answer)).toBe(status);
}

/** A reference server listening on 127.0.0.1, called over real HTTP. */
export class TestServer {
  constructor(
    readonly server: LeaseholdServer<Store>,
    readonly listener: NodeListener,
    /** The base path the API is mounted under (`''` for none). */
    readonly basePath: string,
    /** The SQL store of this server (the project's store matrix), thrown away on close. */
    private readonly sqlStore?: TestStore,
  ) {}

  /** `http://127.0.0.1:PORT` (without the base path). */
  get origin(): string {
    return this.listener.url;
  }

  /** The SQL store's driver (`undefined` on the memory store): a suite can hold its connections. */
  get driver(): TestStore['driver'] | undefined {
    return this.sqlStore?.driver;
  }

  /** The in-process test levers (synchronous on the memory store, promises on SQL: await them). */
  get control(): ServerControl<Store> {
    return this.server.control;
  }

  /** Calls an operation of the spec by id over HTTP and checks the answer against the contract. */
  async call(operationId: string, options: CallOptions = {}): Promise<Answer> {
    const observed = await observe(await this.send(operationId, options));
    expectContract(operationId, observed);
    return { ...observed, operationId };
  }

  /** Sends an operation's request and answers the raw `Response` (or the network error). */
  send(operationId: string, options: CallOptions = {}): Promise<Response> {
    const entry = operations.get(operationId);
    if (!entry) throw new Error(`unknown operation ${operationId}`);
    const pathname = entry.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
      const value = options.path?.[name];
      if (value === undefined) throw new Error(`${operationId}: missing path parameter ${name}`);
      return encodeURIComponent(String(value));
    });
    const query = options.query ? `?${new URLSearchParams(Object.entries(options.query).map(([k, v]) => [k, String(v)]))}` : '';
    const headers = new Headers(options.headers);
    if (options.key !== null) headers.set('authorization', `Bearer ${options.key ?? ADMIN}`);
    const idempotencyKey =
      options.idempotencyKey === undefined ? (requiresIdempotencyKey(operationId) ? `idem-${randomUUID()}` : undefined) : options.idempotencyKey;
    if (idempotencyKey !== null && idempotencyKey !== undefined && !headers.has('idempotency-key')) {
      headers.set('idempotency-key', idempotencyKey);
    }
    let body: string | Uint8Array<ArrayBuffer> | undefined = options.body;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    }
    return fetch(`${this.origin}${this.basePath}${pathname}${query}`, { method: entry.method.toUpperCase(), headers, body });
  }

  /** A plain request to any path of the listener (for routes outside the operations). */
  async raw(path: string, init: RequestInit = {}): Promise<ObservedResponse> {
    return observe(await fetch(`${this.origin}${path}`, init));
  }

  // ---- flows the suites share; each asserts its own success ----

  /** Acquires `key` in `SPACE` (or `spaceId`) for `SCOPE`; answers the 201/202 claim. */
  async acquire(key: string, body: Record<string, unknown> = {}, options: CallOptions = {}): Promise<Answer> {
    const answer = await this.call('acquireSpaceClaim', {
      ...options,
      path: { spaceId: SPACE, ...options.path },
      json: { key, scopeId: SCOPE, holder: 'worker-1', holderSession: 'sess-1', ...body },
    });
    expect([201, 202], describeAnswer(answer)).toContain(answer.status);
    return answer;
  }

  /** Creates a task; answers its id and ETag. */
  async createTask(title = 'Rebuild the November report', key = ADMIN): Promise<{ id: number; etag: string }> {
    const answer = await this.call('createTask', { key, json: { title } });
    expectStatus(answer, 201);
    return { id: answer.body.id as number, etag: answer.headers.get('etag') as string };
  }

  /** Claims a task; answers the token, the claim and the new ETag. */
  async claimTask(id: number, etag: string, headers: Record<string, string> = {}): Promise<{ token: string; etag: string; claim: Answer['body'] }> {
    const answer = await this.call('claimTask', { path: { taskId: id }, headers: { 'If-Match': etag, ...headers } });
    expectStatus(answer, 200);
    return { token: answer.body.token as string, etag: answer.headers.get('etag') as string, claim: answer.body };
  }

  /** Creates a spool and one queue with `leaseTimeoutSeconds`. */
  async createQueue(spool: string, queue: string, leaseTimeoutSeconds: number | null = 30, key = ADMIN): Promise<void> {
    expectStatus(await this.call('createSpool', { key, json: { name: spool } }), 201);
    expectStatus(await this.call('putQueue', { key, path: { spool, queue }, json: { leaseTimeoutSeconds } }), 201);
  }

  /** Sends a message; answers it. */
  async sendMessage(spool: string, queue: string, body: unknown = { invoiceId: 'inv_1042' }): Promise<Answer['body']> {
    const answer = await this.call('sendMessage', { path: { spool, queue }, json: { body } });
    expectStatus(answer, 201);
    return answer.body;
  }

  /** Receives a message; answers its lease and the answer. */
  async receive(spool: string, queue: string, headers: Record<string, string> = {}): Promise<{ lease: string; answer: Answer }> {
    const answer = await this.call('receiveMessage', { path: { spool, queue }, headers });
    expectStatus(answer, 200);
    return { lease: answer.headers.get('spooler-lease') as string, answer };
  }

  /** Stops the listener (and throws away a SQL store). */
  async close(): Promise<void> {
    await this.listener.close();
    await this.sqlStore?.dispose();
  }
}

const running = new Set<TestServer>();

/** The demo keys plus any `extraKeys`. */
export function keysWith(...extraKeys: KeyConfig[]): KeyConfig[] {
  return [...DEFAULT_KEYS, ...extraKeys];
}

/**
 * Builds a reference server (manual clock, `/_control` served unless told otherwise) and
 * listens on 127.0.0.1 with a free port. Close them all with `stopServers` in `afterEach`.
 */
export async function startServer(options: LeaseholdServerOptions = {}): Promise<TestServer> {
  const sql = await openTestStore({ clock: 'manual', ...options });
  const server: LeaseholdServer<Store> =
    sql === undefined ? createLeaseholdServer({ clock: 'manual', control: true, ...options }) : createLeaseholdServer({ control: true, ...options, store: sql.store });
  const listener = await listen(server, { port: 0 });
  // Calls go to the first mount (the default mounts are `/` and `/api`: the root).
  const basePath = typeof options.basePath === 'string' ? options.basePath : (options.basePath?.[0] ?? '');
  const started = new TestServer(server, listener, basePath.replace(/\/+$/, ''), sql);
  running.add(started);
  return started;
}

/** Closes every server `startServer` built. */
export async function stopServers(): Promise<void> {
  const servers = [...running];
  running.clear();
  await Promise.all(servers.map((s) => s.close()));
}
