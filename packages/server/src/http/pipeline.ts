import { randomBytes } from 'node:crypto';
import {
  EngineError,
  errorStatusByCode,
  normalizeIdempotencyKey,
  requestFingerprint,
  type Credential,
  type Engine,
  type Permission,
} from '../engine/index.js';
import { parseJsonBody } from './body.js';
import type { FaultAction, FaultInjector } from './faults.js';
import type { Handler, HandlerContext, HandlerResult } from './handler.js';
import { HttpError, envelopeOf } from './http-error.js';
import type { PlainRequest, PlainResponse } from './plain.js';
import { Router } from './router.js';
import type { RouteSpec } from './routes.js';
import { validateRequest } from './validation.js';

/** How the pipeline is put together. */
export interface PipelineOptions {
  engine: Engine;
  faults: FaultInjector;
  handlers: Record<string, Handler>;
  /** A prefix the API is mounted under, e.g. `/api` (default: none). */
  basePath?: string;
  /** Serve the `/_control` operations over HTTP. */
  controlEnabled?: boolean;
  /** Extra non-API routes answered before routing (e.g. `/openapi.json`, `/docs`). */
  staticRoutes?: Record<string, () => PlainResponse>;
  /** Waits `ms` of real time (injected so tests can use fake timers). */
  sleep?: (ms: number) => Promise<void>;
  /** Called for unexpected exceptions (answered as 500). */
  onInternalError?: (error: unknown) => void;
}

/** A stored idempotent answer. */
interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: string | undefined;
}

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
/**
 * The headers of a plain JSON answer and of an empty one. Stored answers share these (they are
 * never mutated: `finish` and replays copy), and `finish` recognizes the JSON one by identity.
 */
const JSON_HEADERS: Record<string, string> = Object.freeze({ 'content-type': JSON_CONTENT_TYPE });
const NO_HEADERS: Record<string, string> = Object.freeze({});
/** What `run` answers when an injected fault drops the response (after the handler ran). */
const DROPPED: StoredAnswer = Object.freeze({ status: 0, headers: NO_HEADERS, body: undefined });
const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Request ids: `req_`, a random prefix drawn once per process (9 bytes, 12 base64url
 * characters), then a counter in base 36. Unique per response within the process (the counter)
 * and across processes and restarts with overwhelming probability (72 random bits), without a
 * `randomBytes` call per request. They are identifiers, not secrets: within one process they are
 * sequential, so one id reveals its neighbours, and nothing accepts a request id as proof of
 * anything (it is only quoted in logs and problem reports).
 */
const REQUEST_ID_PREFIX = `req_${randomBytes(9).toString('base64url')}`;
let requestCount = 0;

function nextRequestId(): string {
  return REQUEST_ID_PREFIX + (requestCount++).toString(36);
}

/**
 * The request pipeline on plain values: base path, routing, auth, rate limits, permissions,
 * faults, body parsing, validation, idempotency, the handler, and the canonical envelope for
 * every error. It never throws: anything unexpected becomes a 500 envelope.
 */
export class Pipeline {
  private readonly router = new Router();
  private readonly basePath: string;
  private readonly sleep: (ms: number) => Promise<void>;
  /** The `Date` header of the clock's current second (formatted once per second). */
  private dateSecond = Number.NaN;
  private dateText = '';

  /** Builds a pipeline over an engine and its handlers. */
  constructor(private readonly options: PipelineOptions) {
    this.basePath = (options.basePath ?? '').replace(/\/+$/, '');
    this.sleep = options.sleep ?? defaultSleep;
  }

  /** Answers one request. */
  async handlePlain(request: PlainRequest): Promise<PlainResponse> {
    return this.respond(request);
  }

  /**
   * Answers one request like `handlePlain`, synchronously unless an injected fault makes it wait
   * (then a promise). Never throws: anything unexpected becomes a 500 envelope.
   */
  respond(request: PlainRequest): PlainResponse | Promise<PlainResponse> {
    const requestId = nextRequestId();
    let answer: StoredAnswer | Promise<StoredAnswer>;
    try {
      answer = this.run(request);
    } catch (error) {
      return this.finish(this.errorAnswer(error), requestId);
    }
    if (answer instanceof Promise) {
      return answer.then(
        (settled) => this.complete(settled, requestId),
        (error: unknown) => this.finish(this.errorAnswer(error), requestId),
      );
    }
    return this.complete(answer, requestId);
  }

  private complete(answer: StoredAnswer, requestId: string): PlainResponse {
    if (answer === DROPPED) return { status: 0, headers: {}, body: undefined, drop: true };
    return this.finish(answer, requestId);
  }

  /** Routes, authorizes and applies faults; the answer is a promise only when a fault waits. */
  private run(request: PlainRequest): StoredAnswer | Promise<StoredAnswer> {
    // An absolute-form target (`GET http://host/v1/...`), which HTTP/1.1 servers must accept.
    const url = request.url.charCodeAt(0) === 47 /* / */ ? request.url : originFormOf(request.url);
    const queryAt = url.indexOf('?');
    const fullPath = queryAt === -1 ? url : url.slice(0, queryAt);
    const search = queryAt === -1 ? '' : url.slice(queryAt + 1);
    const path = this.stripBase(fullPath);
    const special = path === undefined ? undefined : this.options.staticRoutes?.[path];
    if (special && request.method === 'GET') {
      const plain = special();
      return { status: plain.status, headers: plain.headers, body: plain.body };
    }
    if (path === undefined) throw new HttpError(404, 'route_not_found', 'No operation at this path.');
    const match = this.router.match(request.method, path);
    const route = match.route;
    if (route.isControl) {
      if (!this.options.controlEnabled) {
        throw new HttpError(404, 'route_not_found', 'No operation at this path (start the server with --control).');
      }
      return this.execute(request, route, match.params, undefined, path, search, 0);
    }
    const credential = this.authorize(request, route);
    const faults = this.options.faults;
    const fault = faults.size === 0 ? undefined : faults.take({ operationId: route.operationId, method: request.method, path });
    if (fault === undefined) return this.execute(request, route, match.params, credential, path, search, 0);
    return this.runFaulted(request, route, match.params, credential, path, search, fault);
  }

  private runFaulted(
    request: PlainRequest,
    route: RouteSpec,
    params: Record<string, string>,
    credential: Credential,
    path: string,
    search: string,
    fault: FaultAction,
  ): StoredAnswer | Promise<StoredAnswer> {
    if (fault.status !== undefined) {
      const status = fault.status;
      const headers: Record<string, string> =
        fault.retryAfterSeconds !== undefined ? { 'Retry-After': String(fault.retryAfterSeconds) } : {};
      const injected = () => new HttpError(status, faultCode(status), 'Injected fault.', undefined, undefined, headers);
      if (fault.latencyMs > 0) {
        return this.sleep(fault.latencyMs).then(() => {
          throw injected();
        });
      }
      throw injected();
    }
    const answer = this.execute(request, route, params, credential, path, search, fault.latencyMs);
    if (!fault.dropResponse) return answer;
    return answer instanceof Promise ? answer.then(() => DROPPED) : DROPPED;
  }

  /**
   * Body, validation, the handler and idempotency. `latencyMs` (an injected fault's) is waited
   * after the handler ran and before an idempotent answer is stored, as a slow server would.
   */
  private execute(
    request: PlainRequest,
    route: RouteSpec,
    params: Record<string, string>,
    credential: Credential | undefined,
    path: string,
    search: string,
    latencyMs: number,
  ): StoredAnswer | Promise<StoredAnswer> {
    const headers = request.headers;
    const body = route.hasBody ? parseJsonBody(request) : undefined;
    const input = validateRequest(route, { path: params, search, headers, body });
    const handler = this.options.handlers[route.operationId];
    if (!handler) throw new Error(`no handler for ${route.operationId}`);
    const context: HandlerContext = { engine: this.options.engine, credential, input, session: headers['leasehold-session'] };

    const rawKey = headers['idempotency-key'];
    if (credential === undefined || rawKey === undefined || !route.headerParams.includes('Idempotency-Key')) {
      const answer = this.answer(handler, context);
      return latencyMs > 0 ? this.sleep(latencyMs).then(() => answer) : answer;
    }
    const key = normalizeIdempotencyKey(rawKey);
    const fingerprint = fingerprintOf(request, search ? `${path}?${search}` : path);
    const store = this.options.engine.idempotency;
    const credentialId = credential.credentialId;
    const verdict = store.begin(credentialId, key, fingerprint);
    if (verdict.kind === 'replay') {
      const stored = verdict.response as StoredAnswer;
      return { ...stored, headers: { ...stored.headers, 'Idempotent-Replayed': 'true' } };
    }
    let answer: StoredAnswer;
    try {
      answer = this.answer(handler, context);
    } catch (error) {
      store.abandon(credentialId, key);
      throw error;
    }
    if (latencyMs > 0) {
      return this.sleep(latencyMs).then(
        () => settle(store, credentialId, key, answer),
        (error: unknown) => {
          store.abandon(credentialId, key);
          throw error;
        },
      );
    }
    return settle(store, credentialId, key, answer);
  }

  private stripBase(path: string): string | undefined {
    if (!this.basePath) return path;
    if (path === this.basePath) return '/';
    return path.startsWith(`${this.basePath}/`) ? path.slice(this.basePath.length) : undefined;
  }

  private authorize(request: PlainRequest, route: RouteSpec): Credential {
    const engine = this.options.engine;
    const auth = engine.authenticate(request.headers.authorization);
    if (!auth.ok) throw new HttpError(auth.status, auth.code ?? undefined, auth.message);
    const rate = engine.checkRateLimit(auth.credential);
    if (!rate.allowed) {
      throw new HttpError(429, 'rate_limited', 'Too many requests for this API key.', undefined, undefined, {
        'Retry-After': String(rate.retryAfterSeconds),
      });
    }
    const permission = route.permission as Permission | undefined;
    if (permission && !auth.credential.permissions.has(permission)) {
      throw new HttpError(403, 'permission_denied', `This API key lacks the ${permission} permission.`);
    }
    return auth.credential;
  }

  /** Runs a handler; engine and HTTP errors become envelopes, everything else propagates. */
  private answer(handler: Handler, context: HandlerContext): StoredAnswer {
    try {
      const result: HandlerResult = handler(context);
      const hasBody = result.body !== undefined;
      const extra = result.headers;
      return {
        status: result.status,
        headers:
          extra === undefined ? (hasBody ? JSON_HEADERS : NO_HEADERS)
          : hasBody ? { 'content-type': JSON_CONTENT_TYPE, ...extra }
          : { ...extra },
        body: hasBody ? JSON.stringify(result.body) : undefined,
      };
    } catch (error) {
      if (error instanceof HttpError || error instanceof EngineError) return this.errorAnswer(error);
      throw error;
    }
  }

  private errorAnswer(error: unknown): StoredAnswer {
    let http: HttpError;
    if (error instanceof HttpError) http = error;
    else if (error instanceof EngineError) http = new HttpError(errorStatusByCode[error.code], error.code, error.message, error.param);
    else {
      this.options.onInternalError?.(error);
      http = new HttpError(500, 'internal_error', 'The server could not complete the request.');
    }
    // The envelope's request_id is filled in by finish(), which knows the id.
    return { status: http.status, headers: { ...JSON_HEADERS, ...http.headers }, body: JSON.stringify(envelopeOf(http, '')) };
  }

  private finish(answer: StoredAnswer, requestId: string): PlainResponse {
    let body = answer.body;
    if (answer.status >= 400 && body !== undefined) {
      const envelope = JSON.parse(body) as Record<string, unknown>;
      envelope.request_id = requestId;
      body = JSON.stringify(envelope);
    }
    const date = this.dateHeader();
    const headers: Record<string, string> =
      answer.headers === JSON_HEADERS ?
        { 'content-type': JSON_CONTENT_TYPE, 'Request-Id': requestId, Date: date }
      : { ...answer.headers, 'Request-Id': requestId, Date: date };
    return { status: answer.status, headers, body };
  }

  /** `Date` for the engine clock's now, formatted once per second (the header has no finer unit). */
  private dateHeader(): string {
    const now = this.options.engine.clock.now();
    const second = Math.floor(now / 1000);
    if (second !== this.dateSecond) {
      this.dateSecond = second;
      this.dateText = new Date(now).toUTCString();
    }
    return this.dateText;
  }
}

/** Stores a completed idempotent answer (a 5xx is forgotten, so a retry runs again). */
function settle(
  store: Engine['idempotency'],
  credentialId: string,
  key: string,
  answer: StoredAnswer,
): StoredAnswer {
  if (answer.status >= 500) store.abandon(credentialId, key);
  else store.complete(credentialId, key, answer);
  return answer;
}

/**
 * The idempotency fingerprint: method, path and body, plus the `Spooler-Lease` header, which
 * names the subject of the spool settles the way a body field names it elsewhere.
 */
function fingerprintOf(request: PlainRequest, path: string): string {
  const lease = request.headers['spooler-lease'];
  if (lease === undefined) return requestFingerprint(request.method, path, request.body);
  const body = request.body ?? new Uint8Array();
  const suffix = new TextEncoder().encode(`\nSpooler-Lease: ${lease}`);
  const combined = new Uint8Array(body.length + suffix.length);
  combined.set(body);
  combined.set(suffix, body.length);
  return requestFingerprint(request.method, path, combined);
}

function originFormOf(target: string): string {
  const match = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(target);
  if (!match) return target;
  const rest = target.slice(match[0].length);
  return rest === '' || rest[0] === '?' ? `/${rest}` : rest;
}

function faultCode(status: number): string | undefined {
  if (status === 503) return 'service_unavailable';
  if (status === 429) return 'rate_limited';
  if (status === 500) return 'internal_error';
  return undefined;
}
