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
import type { Handler, HandlerResult } from './handler.js';
import { HttpError, envelopeOf } from './http-error.js';
import type { PlainRequest, PlainResponse } from './plain.js';
import { Router, type RouteMatch } from './router.js';
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

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };
const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The request pipeline on plain values: base path, routing, auth, rate limits, permissions,
 * faults, body parsing, validation, idempotency, the handler, and the canonical envelope for
 * every error. It never throws: anything unexpected becomes a 500 envelope.
 */
export class Pipeline {
  private readonly router = new Router();
  private readonly basePath: string;
  private readonly sleep: (ms: number) => Promise<void>;

  /** Builds a pipeline over an engine and its handlers. */
  constructor(private readonly options: PipelineOptions) {
    this.basePath = (options.basePath ?? '').replace(/\/+$/, '');
    this.sleep = options.sleep ?? defaultSleep;
  }

  /** Answers one request. */
  async handlePlain(request: PlainRequest): Promise<PlainResponse> {
    const requestId = `req_${randomBytes(12).toString('base64url')}`;
    let answer: StoredAnswer;
    let fault: FaultAction | undefined;
    try {
      ({ answer, fault } = await this.run(request));
    } catch (error) {
      answer = this.errorAnswer(error);
    }
    if (fault?.dropResponse) return { status: 0, headers: {}, body: undefined, drop: true };
    return this.finish(answer, requestId);
  }

  private async run(request: PlainRequest): Promise<{ answer: StoredAnswer; fault?: FaultAction }> {
    const queryAt = request.url.indexOf('?');
    const fullPath = queryAt === -1 ? request.url : request.url.slice(0, queryAt);
    const search = queryAt === -1 ? '' : request.url.slice(queryAt + 1);
    const path = this.stripBase(fullPath);
    const special = path === undefined ? undefined : this.options.staticRoutes?.[path];
    if (special && request.method === 'GET') {
      const plain = special();
      return { answer: { status: plain.status, headers: plain.headers, body: plain.body } };
    }
    if (path === undefined) throw new HttpError(404, 'route_not_found', 'No operation at this path.');
    const match = this.router.match(request.method, path);
    if (match.route.isControl && !this.options.controlEnabled) {
      throw new HttpError(404, 'route_not_found', 'No operation at this path (start the server with --control).');
    }
    const credential = match.route.isControl ? undefined : this.authorize(request, match);
    const fault = match.route.isControl ? undefined : this.options.faults.take({ operationId: match.route.operationId, method: request.method, path });
    if (fault?.status !== undefined) {
      if (fault.latencyMs > 0) await this.sleep(fault.latencyMs);
      const headers: Record<string, string> =
        fault.retryAfterSeconds !== undefined ? { 'Retry-After': String(fault.retryAfterSeconds) } : {};
      throw new HttpError(fault.status, faultCode(fault.status), 'Injected fault.', undefined, undefined, headers);
    }
    const body = match.route.hasBody ? parseJsonBody(request) : undefined;
    const input = validateRequest(match.route, {
      path: match.params,
      query: new URLSearchParams(search),
      headers: request.headers,
      body,
    });
    const handler = this.options.handlers[match.route.operationId];
    if (!handler) throw new Error(`no handler for ${match.route.operationId}`);
    const context = { engine: this.options.engine, credential, input, session: request.headers['leasehold-session'] };

    const rawKey = request.headers['idempotency-key'];
    const idempotent = credential !== undefined && rawKey !== undefined && match.route.headerParams.includes('Idempotency-Key');
    if (!idempotent) {
      const answer = this.answer(() => handler(context));
      if (fault && fault.latencyMs > 0) await this.sleep(fault.latencyMs);
      return { answer, fault };
    }
    const key = normalizeIdempotencyKey(rawKey);
    const fingerprint = fingerprintOf(request, path + (search ? `?${search}` : ''));
    const store = this.options.engine.idempotency;
    const verdict = store.begin(credential.credentialId, key, fingerprint);
    if (verdict.kind === 'replay') {
      const stored = verdict.response as StoredAnswer;
      return { answer: { ...stored, headers: { ...stored.headers, 'Idempotent-Replayed': 'true' } }, fault };
    }
    let answer: StoredAnswer;
    try {
      answer = this.answer(() => handler(context));
      if (fault && fault.latencyMs > 0) await this.sleep(fault.latencyMs);
    } catch (error) {
      store.abandon(credential.credentialId, key);
      throw error;
    }
    if (answer.status >= 500) store.abandon(credential.credentialId, key);
    else store.complete(credential.credentialId, key, answer);
    return { answer, fault };
  }

  private stripBase(path: string): string | undefined {
    if (!this.basePath) return path;
    if (path === this.basePath) return '/';
    return path.startsWith(`${this.basePath}/`) ? path.slice(this.basePath.length) : undefined;
  }

  private authorize(request: PlainRequest, match: RouteMatch): Credential {
    const engine = this.options.engine;
    const auth = engine.authenticate(request.headers.authorization);
    if (!auth.ok) throw new HttpError(auth.status, auth.code ?? undefined, auth.message);
    const rate = engine.checkRateLimit(auth.credential);
    if (!rate.allowed) {
      throw new HttpError(429, 'rate_limited', 'Too many requests for this API key.', undefined, undefined, {
        'Retry-After': String(rate.retryAfterSeconds),
      });
    }
    const permission = match.route.permission as Permission | undefined;
    if (permission && !auth.credential.permissions.has(permission)) {
      throw new HttpError(403, 'permission_denied', `This API key lacks the ${permission} permission.`);
    }
    return auth.credential;
  }

  /** Runs a handler; engine and HTTP errors become envelopes, everything else propagates. */
  private answer(run: () => HandlerResult): StoredAnswer {
    try {
      const result = run();
      return {
        status: result.status,
        headers: { ...(result.body !== undefined ? JSON_HEADERS : {}), ...result.headers },
        body: result.body === undefined ? undefined : JSON.stringify(result.body),
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
    return {
      status: answer.status,
      headers: { ...answer.headers, 'Request-Id': requestId, Date: new Date(this.options.engine.clock.now()).toUTCString() },
      body,
    };
  }
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

function faultCode(status: number): string | undefined {
  if (status === 503) return 'service_unavailable';
  if (status === 429) return 'rate_limited';
  if (status === 500) return 'internal_error';
  return undefined;
}
