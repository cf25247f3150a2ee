import { EngineError, errorStatusByCode, normalizeIdempotencyKey, type Credential, type Engine, type Permission } from '../engine/index.js';
import { DROPPED, JSON_CONTENT_TYPE, JSON_HEADERS, NO_HEADERS, settle, type StoredAnswer } from './answer.js';
import { parseJsonBody } from './body.js';
import { errorEnvelope, Mounts, type ErrorFields } from '@leasehold/protocol';
import type { FaultAction, FaultInjector } from './faults.js';
import type { Handler, HandlerContext, HandlerResult } from './handler.js';
import { HttpError } from './http-error.js';
import type { PlainRequest, PlainResponse } from './plain.js';
import { nextRequestId } from './request-id.js';
import { faultCode, fingerprintOf, originFormOf } from './request-parts.js';
import { Router } from './router.js';
import type { RouteSpec } from './routes.js';
import { validateRequest } from './validation.js';

/** How the pipeline is put together. */
export interface PipelineOptions {
  engine: Engine;
  faults: FaultInjector;
  handlers: Record<string, Handler>;
  /** The prefixes the API is mounted under (default `/` and `/api`; see `Mounts`). */
  basePaths?: readonly string[];
  /**
   * The API reference every `doc_url` links into (a hosted deployment's). Default: the one this
   * server serves, `<the API base URL the request reached>/docs`.
   */
  docsUrl?: string;
  /** Serve the `/_control` operations over HTTP. */
  controlEnabled?: boolean;
  /** Extra non-API GET routes under each mount, answered before routing (e.g. `/openapi.json`, `/docs`). */
  staticRoutes?: Record<string, (request: MountedRequest) => PlainResponse>;
  /** Waits `ms` of real time (injected so tests can use fake timers). */
  sleep?: (ms: number) => Promise<void>;
  /** Called for unexpected exceptions (answered as 500). */
  onInternalError?: (error: unknown) => void;
}

/** What a static route knows of its request. */
export interface MountedRequest {
  /** The API base URL the request reached: origin and mount (`http://127.0.0.1:4010/api`). */
  apiBaseUrl: string;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Where a request landed: the API path under its mount (`undefined`: under none) and that mount's base URL. */
interface Target {
  path: string | undefined;
  search: string;
  apiBaseUrl: string;
}

/** The origin assumed when an adapter does not say which one a request reached. */
const UNKNOWN_ORIGIN = 'http://localhost';

/**
 * The request pipeline on plain values: base path, routing, auth, rate limits, permissions,
 * faults, body parsing, validation, idempotency, the handler, and the canonical envelope for
 * every error. It never throws: anything unexpected becomes a 500 envelope.
 */
export class Pipeline {
  private readonly router = new Router();
  private readonly mounts: Mounts;
  private readonly sleep: (ms: number) => Promise<void>;
  /** The `Date` header of the clock's current second (formatted once per second). */
  private dateSecond = Number.NaN;
  private dateText = '';

  /** Builds a pipeline over an engine and its handlers. */
  constructor(private readonly options: PipelineOptions) {
    this.mounts = new Mounts(options.basePaths);
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
    const target = this.target(request);
    const head = request.method === 'HEAD';
    let answer: StoredAnswer | Promise<StoredAnswer>;
    try {
      answer = this.run(request, target);
    } catch (error) {
      return this.finish(this.errorAnswer(error), requestId, target, head);
    }
    if (answer instanceof Promise) {
      return answer.then(
        (settled) => this.complete(settled, requestId, target, head),
        (error: unknown) => this.finish(this.errorAnswer(error), requestId, target, head),
      );
    }
    return this.complete(answer, requestId, target, head);
  }

  private complete(answer: StoredAnswer, requestId: string, target: Target, head: boolean): PlainResponse {
    if (answer === DROPPED) return { status: 0, headers: {}, body: undefined, drop: true };
    return this.finish(answer, requestId, target, head);
  }

  /** The mount a request lies under and the base URL it reached there (never throws). */
  private target(request: PlainRequest): Target {
    // An absolute-form target (`GET http://host/v1/...`), which HTTP/1.1 servers must accept.
    const url = request.url.charCodeAt(0) === 47 /* / */ ? request.url : originFormOf(request.url);
    const queryAt = url.indexOf('?');
    const fullPath = queryAt === -1 ? url : url.slice(0, queryAt);
    const search = queryAt === -1 ? '' : url.slice(queryAt + 1);
    const mounted = this.mounts.match(fullPath);
    const origin = request.baseUrl ?? UNKNOWN_ORIGIN;
    return { path: mounted?.path, search, apiBaseUrl: origin + (mounted?.mount ?? '') };
  }

  /** Routes, authorizes and applies faults; the answer is a promise only when a fault waits. */
  private run(request: PlainRequest, target: Target): StoredAnswer | Promise<StoredAnswer> {
    const { path, search } = target;
    const special = path === undefined ? undefined : this.options.staticRoutes?.[path];
    if (special && (request.method === 'GET' || request.method === 'HEAD')) {
      const plain = special({ apiBaseUrl: target.apiBaseUrl });
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
    const fault = faults.size === 0 ? undefined : faults.take({ operationId: route.operationId, method: route.method, path });
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
    if (credential === undefined || rawKey === undefined || !route.takesIdempotencyKey) {
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

  private authorize(request: PlainRequest, route: RouteSpec): Credential {
    const engine = this.options.engine;
    const header = request.headers.authorization;
    // Adapters join a repeated header with ", " (as Fetch does), and no Bearer credential holds a
    // comma: which of several credentials was meant is unknowable, so none is tried.
    if (header !== undefined && header.includes(',')) {
      throw new HttpError(
        400,
        'ambiguous_header',
        'Send Authorization exactly once: this request carries several values (a repeated header, or a comma).',
        'Authorization',
      );
    }
    const auth = engine.authenticate(header);
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
    let fields: ErrorFields;
    let headers: Record<string, string> = JSON_HEADERS;
    if (error instanceof HttpError) {
      fields = error.fields();
      if (Object.keys(error.headers).length > 0) headers = { ...JSON_HEADERS, ...error.headers };
    } else if (error instanceof EngineError) {
      fields = { status: errorStatusByCode[error.code], code: error.code, message: error.message, param: error.param };
    } else {
      this.options.onInternalError?.(error);
      fields = { status: 500, code: 'internal_error', message: 'The server could not complete the request.' };
    }
    // The envelope is built by finish(), which knows the request id and the docs URL.
    return { status: fields.status, headers, body: undefined, error: fields };
  }

  /**
   * Stamps an answer for the wire: the error envelope (request id, `doc_url`), `Request-Id`,
   * `Date`; a HEAD request gets the same status and headers without the body.
   */
  private finish(answer: StoredAnswer, requestId: string, target: Target, head: boolean): PlainResponse {
    let body = answer.body;
    if (answer.error !== undefined) {
      const docsUrl = this.options.docsUrl ?? `${target.apiBaseUrl}/docs`;
      body = JSON.stringify(errorEnvelope(answer.error, { requestId, docsUrl }));
    }
    if (head) body = undefined;
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

