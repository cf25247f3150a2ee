/**
 * A populated reference server ("world") and, for every production operation of the spec, one
 * valid request against it. The bad-input suite mutates these requests; the security suite sends
 * them with the wrong credentials. Everything runs in process through `server.handle`.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { ApiOperationId } from '@leasehold/protocol';
import type { LeaseholdServer, Store } from '../../../packages/server/src/index.js';
import { bundledSpec, listOperations } from '../../support/spec-validator.js';

/** A request as plain values: method, path segments (already encoded), query, headers, body. */
export interface PlainCall {
  method: string;
  /** Path segments after the leading `/`, each percent-encoded. */
  segments: string[];
  /** The raw query string without `?` (`''`: none). */
  query: string;
  headers: Record<string, string>;
  /** Raw body bytes or text; `undefined`: no body. */
  body?: string | Uint8Array<ArrayBuffer>;
}

/** One operation of the spec, as the suites need it. */
export interface OperationInfo {
  operationId: string;
  method: string;
  template: string;
  /** Template segments; `{name}` marks a path parameter. */
  templateSegments: string[];
  /** Query parameters the operation declares. */
  queryParams: string[];
  /** Header parameters the operation declares (spec spelling). */
  headerParams: string[];
  hasBody: boolean;
  permission: string;
  /** A read (`*_read` permission). */
  read: boolean;
}

const spec = listOperations();
const PARAMETERS = bundledSpec.components.parameters as Record<string, { name: string; in: string }>;

/** Every operation of the spec, the `/_control` test levers included. */
export const ALL_OPERATIONS: OperationInfo[] = spec
  .map(({ method, path, operation }) => {
    const parameters = (operation.parameters ?? []).map((p) => {
      const ref = (p as { $ref?: string }).$ref;
      return ref ? (PARAMETERS[ref.split('/').pop() as string] as { name: string; in: string }) : (p as { name: string; in: string });
    });
    const permission = (operation['x-permission'] as string | undefined) ?? '';
    return {
      operationId: operation.operationId,
      method: method.toUpperCase(),
      template: path,
      templateSegments: path.split('/').slice(1),
      queryParams: parameters.filter((p) => p.in === 'query').map((p) => p.name),
      headerParams: parameters.filter((p) => p.in === 'header').map((p) => p.name),
      hasBody: operation.requestBody !== undefined,
      permission,
      read: permission.endsWith('_read') || permission.endsWith(':read'),
    };
  });

/** Every production operation (the `/_control` test levers left out). */
export const OPERATIONS: OperationInfo[] = ALL_OPERATIONS.filter((op) => !op.template.startsWith('/_control'));

/** The test-lever operations under `/_control` (served only with `control: true`). */
export const CONTROL_OPERATIONS: OperationInfo[] = ALL_OPERATIONS.filter((op) => op.template.startsWith('/_control'));

/** The methods a path template allows. */
export function methodsAt(template: string): string[] {
  return ALL_OPERATIONS.filter((op) => op.template === template).map((op) => op.method);
}

interface RouteNode {
  literal: Map<string, RouteNode>;
  param?: RouteNode;
  methods: Map<string, string>;
}

const newNode = (): RouteNode => ({ literal: new Map(), methods: new Map() });
const ROUTES: RouteNode = newNode();
for (const op of ALL_OPERATIONS) {
  let node = ROUTES;
  for (const segment of op.templateSegments) {
    if (/^\{.+\}$/.test(segment)) node = node.param ??= newNode();
    else {
      let next = node.literal.get(segment);
      if (!next) node.literal.set(segment, (next = newNode()));
      node = next;
    }
  }
  node.methods.set(op.method, op.operationId);
}

/**
 * Which operation a method and raw path reach, matched the way the server's router does (a trie
 * of the spec's paths: a literal segment first, else a parameter, never an empty segment, no
 * backtracking). `route: false` when no path matches, `method: false` when the path exists but
 * not for this method.
 */
export function routeOf(method: string, rawPath: string): { operation?: OperationInfo; route: boolean; method: boolean } {
  let node: RouteNode | undefined = ROUTES;
  for (const segment of rawPath.split('?')[0]!.split('/').slice(1)) {
    node = node.literal.get(segment) ?? (segment === '' ? undefined : node.param);
    if (!node) return { route: false, method: false };
  }
  if (node.methods.size === 0) return { route: false, method: false };
  const operationId = node.methods.get(method);
  if (!operationId) return { route: true, method: false };
  return { operation: ALL_OPERATIONS.find((op) => op.operationId === operationId), route: true, method: true };
}

/** The URL of a plain call against an origin. */
export function urlOf(origin: string, call: PlainCall): string {
  return `${origin}/${call.segments.join('/')}${call.query ? `?${call.query}` : ''}`;
}

/** A Fetch `Request` for a plain call (no body on GET/HEAD). */
export function requestOf(origin: string, call: PlainCall): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(call.headers)) headers.set(name, value);
  const bodyless = call.method === 'GET' || call.method === 'HEAD';
  return new Request(urlOf(origin, call), { method: call.method, headers, body: bodyless ? undefined : call.body });
}

/** What the world holds, for building requests and checking it did not change. */
export interface World {
  server: LeaseholdServer<Store>;
  apiKey: string;
  spaceId: string;
  scopeId: string;
  heldKey: string;
  heldToken: string;
  heldClaimId: string;
  /** Claimed task: id, ETag after the claim, claim token and claim id. */
  claimed: { id: number; etag: string; token: string; claimId: string };
  /** Unclaimed task. */
  open: { id: number; etag: string };
  spool: string;
  queue: string;
  /** The lease and handle of a received message. */
  lease: string;
  leasedHandle: string;
  /** The handle of a message still in its queue. */
  queuedHandle: string;
}

/** Calls a server in process with a JSON body; answers status, headers and parsed body. */
export async function callJson(
  server: LeaseholdServer<Store>,
  method: string,
  path: string,
  options: { key?: string; json?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Headers; body: any }> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
  if (options.json !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && headers['idempotency-key'] === undefined) headers['idempotency-key'] = `world-${randomUUID()}`;
  const response = await server.handle(
    new Request(`http://world.test${path}`, { method, headers, body: options.json === undefined ? undefined : JSON.stringify(options.json) }),
  );
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text && !(response.headers.get('content-type') ?? '').startsWith('text/event-stream') ? JSON.parse(text) : text || undefined };
}

/** Populates a server for `apiKey`'s account: a held claim, a claimed and an open task, a spool with a leased and a queued message. */
export async function buildWorld(server: LeaseholdServer<Store>, apiKey: string, names: { spool?: string; key?: string; extraTasks?: number } = {}): Promise<World> {
  const call = (method: string, path: string, json?: unknown, headers?: Record<string, string>) => callJson(server, method, path, { key: apiKey, json, headers });
  // Extra tasks first, so this account's task ids run past another account's.
  for (let i = 0; i < (names.extraTasks ?? 0); i++) expect((await call('POST', '/v1/tasks', { title: `filler ${i}` })).status).toBe(201);
  const spaceId = randomUUID();
  const scopeId = randomUUID();
  const heldKey = names.key ?? 'held/key';
  const acquired = await call('POST', `/v1/spaces/${spaceId}/claims`, { key: heldKey, scopeId, holder: 'world', holderSession: 'sess-world' });
  expect(acquired.status).toBe(201);

  const created = await call('POST', '/v1/tasks', { title: 'claimed task' });
  expect(created.status).toBe(201);
  const claim = await call('POST', `/v1/tasks/${created.body.id}/claim`, undefined, { 'if-match': created.headers.get('etag') as string });
  expect(claim.status).toBe(200);
  const open = await call('POST', '/v1/tasks', { title: 'open task' });
  expect(open.status).toBe(201);

  const spool = names.spool ?? 'billing';
  expect((await call('POST', '/v1/spools', { name: spool })).status).toBe(201);
  expect((await call('PUT', `/v1/spools/${spool}/queues/invoices`, { leaseTimeoutSeconds: 30 })).status).toBe(201);
  const first = await call('POST', `/v1/spools/${spool}/queues/invoices/messages`, { body: { invoiceId: 'inv_1' } });
  const second = await call('POST', `/v1/spools/${spool}/queues/invoices/messages`, { body: { invoiceId: 'inv_2' } });
  expect([first.status, second.status]).toEqual([201, 201]);
  const received = await call('POST', `/v1/spools/${spool}/queues/invoices/receive`);
  expect(received.status).toBe(200);
  const queuedHandle = received.body.handle === first.body.handle ? second.body.handle : first.body.handle;

  return {
    server,
    apiKey,
    spaceId,
    scopeId,
    heldKey,
    heldToken: acquired.body.token,
    heldClaimId: acquired.body.claimId,
    claimed: { id: created.body.id, etag: claim.headers.get('etag') as string, token: claim.body.token, claimId: claim.body.claimId },
    open: { id: open.body.id, etag: open.headers.get('etag') as string },
    spool,
    queue: 'invoices',
    lease: received.headers.get('spooler-lease') as string,
    leasedHandle: received.body.handle,
    queuedHandle,
  };
}

const enc = encodeURIComponent;

/** One valid request per production operation against `world` (each would succeed if sent as is; a missing operation does not compile). */
export function validCalls(world: World): Record<string, PlainCall> {
  const auth = { authorization: `Bearer ${world.apiKey}` };
  const json = { ...auth, 'content-type': 'application/json' };
  const idem = () => ({ 'idempotency-key': `fuzz-${randomUUID()}` });
  const s = world.spaceId;
  const k = enc(world.heldKey);
  const c = world.claimed;
  const o = world.open;
  const spool = world.spool;
  const q = world.queue;
  const seg = (path: string) => path.split('/').slice(1);
  const body = (value: unknown) => JSON.stringify(value);
  return {
    heartbeatClaims: { method: 'POST', segments: seg('/v1/claims/heartbeat'), query: '', headers: { ...json, ...idem() }, body: body({ ttl: 30, holderSession: 'sess-nobody' }) },
    listSpaceClaims: { method: 'GET', segments: seg(`/v1/spaces/${s}/claims`), query: 'limit=10', headers: { ...auth } },
    acquireSpaceClaim: {
      method: 'POST',
      segments: seg(`/v1/spaces/${s}/claims`),
      query: '',
      headers: { ...json, ...idem() },
      body: body({ key: 'fuzz/new', scopeId: world.scopeId, holder: 'fuzzer', holderSession: 'sess-fuzz' }),
    },
    getSpaceClaim: { method: 'GET', segments: seg(`/v1/spaces/${s}/claims/${k}`), query: '', headers: { ...auth } },
    renewSpaceClaim: { method: 'POST', segments: seg(`/v1/spaces/${s}/claims/${k}/renew`), query: '', headers: { ...json, ...idem() }, body: body({ token: world.heldToken }) },
    releaseSpaceClaim: { method: 'POST', segments: seg(`/v1/spaces/${s}/claims/${k}/release`), query: '', headers: { ...json, ...idem() }, body: body({ token: world.heldToken }) },
    cancelScope: { method: 'POST', segments: seg(`/v1/spaces/${s}/scopes/${world.scopeId}/cancel`), query: '', headers: { ...auth, ...idem() } },
    listTasks: { method: 'GET', segments: seg('/v1/tasks'), query: 'status=Todo&limit=10', headers: { ...auth } },
    listSpaces: { method: 'GET', segments: seg('/v1/spaces'), query: 'limit=10', headers: { ...auth } },
    getSpaceActivity: { method: 'GET', segments: seg(`/v1/spaces/${s}/activity`), query: 'limit=10', headers: { ...auth } },
    listQueueStats: { method: 'GET', segments: seg('/v1/queues'), query: 'limit=10', headers: { ...auth } },
    getQueueActivity: { method: 'GET', segments: seg(`/v1/spools/${spool}/queues/${q}/activity`), query: 'limit=10', headers: { ...auth } },
    listLeaseEvents: { method: 'GET', segments: seg('/v1/events'), query: 'limit=100', headers: { ...auth } },
    streamLeaseEvents: { method: 'GET', segments: seg('/v1/events/stream'), query: 'limit=100', headers: { ...auth } },
    listSessions: { method: 'GET', segments: seg('/v1/sessions'), query: 'limit=10', headers: { ...auth } },
    createTask: { method: 'POST', segments: seg('/v1/tasks'), query: '', headers: { ...json, ...idem() }, body: body({ title: 'fuzz task' }) },
    getTask: { method: 'GET', segments: seg(`/v1/tasks/${c.id}`), query: '', headers: { ...auth } },
    updateTask: {
      method: 'PATCH',
      segments: seg(`/v1/tasks/${c.id}`),
      query: '',
      headers: { ...json, 'if-match': c.etag, 'x-task-claim': c.token },
      body: body({ status: 'Blocked' }),
    },
    addTaskNote: {
      method: 'POST',
      segments: seg(`/v1/tasks/${c.id}/notes`),
      query: '',
      headers: { ...json, ...idem(), 'if-match': c.etag, 'x-task-claim': c.token },
      body: body({ text: 'fuzz note' }),
    },
    claimTask: { method: 'POST', segments: seg(`/v1/tasks/${o.id}/claim`), query: '', headers: { ...json, ...idem(), 'if-match': o.etag, 'leasehold-session': 'sess-fuzz' }, body: '{}' },
    renewTaskClaim: { method: 'POST', segments: seg(`/v1/tasks/${c.id}/claim/renew`), query: '', headers: { ...json, ...idem(), 'if-match': c.etag }, body: body({ token: c.token }) },
    releaseTaskClaim: { method: 'POST', segments: seg(`/v1/tasks/${c.id}/claim/release`), query: '', headers: { ...json, ...idem(), 'if-match': c.etag }, body: body({ token: c.token }) },
    revokeTaskClaim: { method: 'POST', segments: seg(`/v1/tasks/${c.id}/claim/revoke`), query: '', headers: { ...auth, ...idem(), 'if-match': c.etag } },
    requeueTask: { method: 'POST', segments: seg(`/v1/tasks/${c.id}/requeue`), query: '', headers: { ...auth, ...idem(), 'if-match': c.etag } },
    completeTask: {
      method: 'POST',
      segments: seg(`/v1/tasks/${c.id}/complete`),
      query: '',
      headers: { ...json, 'if-match': c.etag, 'x-task-claim': c.token },
      body: body({ result: { pages: 12 } }),
    },
    createSpool: { method: 'POST', segments: seg('/v1/spools'), query: '', headers: { ...json }, body: body({ name: 'fuzzspool' }) },
    putQueue: { method: 'PUT', segments: seg(`/v1/spools/${spool}/queues/fuzzq`), query: '', headers: { ...json }, body: body({ leaseTimeoutSeconds: 30 }) },
    sendMessage: { method: 'POST', segments: seg(`/v1/spools/${spool}/queues/${q}/messages`), query: '', headers: { ...json }, body: body({ body: { invoiceId: 'inv_9' } }) },
    receiveMessage: { method: 'POST', segments: seg(`/v1/spools/${spool}/queues/${q}/receive`), query: '', headers: { ...auth, 'leasehold-session': 'sess-fuzz' } },
    renewSpoolLease: { method: 'POST', segments: seg(`/v1/spools/${spool}/renew`), query: '', headers: { ...auth, 'spooler-lease': world.lease } },
    ackMessage: { method: 'POST', segments: seg(`/v1/spools/${spool}/ack`), query: '', headers: { ...auth, 'spooler-lease': world.lease } },
    nackMessage: { method: 'POST', segments: seg(`/v1/spools/${spool}/nack`), query: '', headers: { ...json, 'spooler-lease': world.lease }, body: body({ delaySeconds: 0 }) },
    discardMessage: { method: 'DELETE', segments: seg(`/v1/spools/${spool}/messages/${world.queuedHandle}`), query: '', headers: { ...auth } },
  } satisfies Record<ApiOperationId, PlainCall>;
}

/** One valid request per `/_control` operation against `world` (no credential: the levers take none). */
export function validControlCalls(world: World): Record<string, PlainCall> {
  const json = { 'content-type': 'application/json' };
  const seg = (path: string) => path.split('/').slice(1);
  const body = (value: unknown) => JSON.stringify(value);
  return {
    getControlClock: { method: 'GET', segments: seg('/_control/clock'), query: '', headers: {} },
    advanceControlClock: { method: 'POST', segments: seg('/_control/clock/advance'), query: '', headers: json, body: body({ ms: 1000 }) },
    injectControlFault: { method: 'POST', segments: seg('/_control/faults'), query: '', headers: json, body: body({ times: 1, status: 503 }) },
    clearControlFaults: { method: 'DELETE', segments: seg('/_control/faults'), query: '', headers: {} },
    cancelControlScope: { method: 'POST', segments: seg('/_control/scopes/cancel'), query: '', headers: json, body: body({ spaceId: world.spaceId, scopeId: world.scopeId }) },
    discardControlMessage: { method: 'POST', segments: seg('/_control/messages/discard'), query: '', headers: json, body: body({ spool: world.spool, handle: world.queuedHandle }) },
    simulatePrimaryChange: { method: 'POST', segments: seg('/_control/primary-change'), query: '', headers: {} },
    updateControlAccount: { method: 'POST', segments: seg('/_control/accounts/acct_demo'), query: '', headers: json, body: body({ suspended: false }) },
    updateControlCredential: { method: 'POST', segments: seg('/_control/credentials'), query: '', headers: json, body: body({ apiKey: world.apiKey, blocked: false }) },
    loseControlLease: { method: 'POST', segments: seg(`/_control/leases/${world.heldClaimId}/lose`), query: '', headers: {} },
  };
}

/** The success status of each production operation's valid call. */
export const SUCCESS: Record<string, number> = {
  listSpaces: 200,
  getSpaceActivity: 200,
  listQueueStats: 200,
  getQueueActivity: 200,
  listLeaseEvents: 200,
  streamLeaseEvents: 200,
  listSessions: 200,
  heartbeatClaims: 200,
  listSpaceClaims: 200,
  acquireSpaceClaim: 201,
  getSpaceClaim: 200,
  renewSpaceClaim: 200,
  releaseSpaceClaim: 200,
  cancelScope: 200,
  listTasks: 200,
  createTask: 201,
  getTask: 200,
  updateTask: 200,
  addTaskNote: 201,
  claimTask: 200,
  renewTaskClaim: 200,
  releaseTaskClaim: 200,
  revokeTaskClaim: 200,
  requeueTask: 200,
  completeTask: 200,
  createSpool: 201,
  putQueue: 201,
  sendMessage: 201,
  receiveMessage: 200,
  renewSpoolLease: 204,
  ackMessage: 204,
  nackMessage: 204,
  discardMessage: 204,
} satisfies Record<ApiOperationId, number>;

/**
 * A snapshot of what the world's reads show: engine counts (idempotency records apart: a
 * rejected request that reached its handler is stored for replay, as the spec says) and the
 * resources the valid calls touch.
 */
export async function snapshot(world: World, options: { counts?: boolean } = {}): Promise<unknown> {
  const { idempotencyRecords: _records, ...counts } = options.counts === false ? { idempotencyRecords: 0 } : await world.server.control.stats();
  const read = async (path: string) => {
    const answer = await callJson(world.server, 'GET', path, { key: world.apiKey });
    const { request_id: _requestId, error, ...body } = (answer.body ?? {}) as Record<string, unknown>;
    // The request ids differ per read (error.requestId repeats request_id): compare the rest.
    if (error !== undefined) body.error = { ...(error as Record<string, unknown>), requestId: '<request id>' };
    return { status: answer.status, etag: answer.headers.get('etag'), body };
  };
  return {
    counts,
    claimedTask: await read(`/v1/tasks/${world.claimed.id}`),
    openTask: await read(`/v1/tasks/${world.open.id}`),
    heldClaim: await read(`/v1/spaces/${world.spaceId}/claims/${enc(world.heldKey)}`),
    claims: await read(`/v1/spaces/${world.spaceId}/claims`),
    nextTask: await read(`/v1/tasks/${world.open.id + 1}`),
    tasks: await read('/v1/tasks?limit=100'),
  };
}
