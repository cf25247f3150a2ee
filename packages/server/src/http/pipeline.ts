import { errorEnvelope, Mounts } from '@leasehold/protocol';
import type { ServerControl } from '../control/server-control.js';
import type { MaybePromise, Store } from '../store/operations.js';
import { DROPPED, JSON_CONTENT_TYPE, JSON_HEADERS, type StoredAnswer } from './answer.js';
import type { RequestContext, Target } from './context.js';
import { errorAnswerOf } from './error-answer.js';
import type { Faults } from './faults.js';
import type { ApiHandlers, ControlHandlers } from './handler.js';
import type { PlainRequest, PlainResponse } from './plain.js';
import type { RequestObserver } from './observer.js';
import { nextRequestId } from './request-id.js';
import { originFormOf } from './request-parts.js';
import { Router } from './router.js';
import { authenticate, authorize, rateLimit } from './steps/authenticate.js';
import { execute } from './steps/execute.js';
import { injectFaults } from './steps/faults.js';
import { readInput } from './steps/input.js';
import { route, serveStatic, type StaticRoutes } from './steps/route.js';
import type { Step } from './steps/step.js';

export type { MountedRequest, StaticRoutes } from './steps/route.js';

/** How the pipeline is put together. */
export interface PipelineOptions {
  store: Store;
  control: ServerControl<Store>;
  faults: Faults;
  handlers: ApiHandlers;
  controls: ControlHandlers;
  /** The prefixes the API is mounted under (default `/` and `/api`; see `Mounts`). */
  basePaths?: readonly string[] | undefined;
  /** The API reference every `doc_url` links into; default `<the API base URL the request reached>/docs`. */
  docsUrl?: string | undefined;
  /** Serve the `/_control` operations over HTTP. */
  controlEnabled?: boolean | undefined;
  /** Extra non-API GET routes under each mount, answered before routing (e.g. `/openapi.json`, `/docs`). */
  staticRoutes?: StaticRoutes | undefined;
  /** Waits `ms` of real time (injected so tests can use fake timers). */
  sleep?: ((ms: number) => Promise<void>) | undefined;
  /** Called for unexpected exceptions (answered as 500). */
  onInternalError?: ((error: unknown) => void) | undefined;
  /** Sees every answer (metrics, request logs); none: no per-request cost. */
  observer?: RequestObserver | undefined;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The origin assumed when an adapter does not say which one a request reached. */
const UNKNOWN_ORIGIN = 'http://localhost';

/**
 * The request pipeline on plain values: a list of steps over one request context — static
 * routes, routing, authentication, rate limit, permission, faults, body and validation, and
 * the operation as one unit of work of the store — then the canonical envelope for every error,
 * `Request-Id` and `Date`. Synchronous whenever every step is (the memory store); only real
 * promises are awaited. It never throws: anything unexpected becomes a 500 envelope.
 */
export class Pipeline {
  private readonly mounts: Mounts;
  private readonly steps: readonly Step[];
  /** The `Date` header of the store clock's current second (formatted once per second). */
  private dateSecond = Number.NaN;
  private dateText = '';

  /** Builds a pipeline over a store and its handlers. */
  constructor(private readonly options: PipelineOptions) {
    this.mounts = new Mounts(options.basePaths);
    const sleep = options.sleep ?? defaultSleep;
    const { store, control, faults, handlers, controls } = options;
    this.steps = [
      serveStatic(options.staticRoutes ?? {}),
      route(new Router(), options.controlEnabled ?? false),
      authenticate(store),
      rateLimit(store),
      authorize,
      injectFaults(faults, sleep),
      readInput,
      execute({ store, control, handlers, controls, sleep }),
    ];
  }

  /** Answers one request. */
  async handlePlain(request: PlainRequest): Promise<PlainResponse> {
    return this.respond(request);
  }

  /**
   * Answers one request like `handlePlain`, synchronously unless a step has to wait (a SQL store,
   * an injected latency): then a promise. Never throws.
   */
  respond(request: PlainRequest): MaybePromise<PlainResponse> {
    const started = this.options.observer === undefined ? 0 : performance.now();
    const ctx: RequestContext = {
      request,
      requestId: nextRequestId(),
      target: this.target(request),
      route: undefined,
      params: {},
      credential: undefined,
      fault: undefined,
      input: undefined,
      started,
    };
    let answer: MaybePromise<StoredAnswer>;
    try {
      answer = this.run(ctx, 0);
    } catch (error) {
      return this.finish(this.errorAnswer(error), ctx);
    }
    if (answer instanceof Promise) {
      return answer.then(
        (settled) => this.finish(settled, ctx),
        (error: unknown) => this.finish(this.errorAnswer(error), ctx),
      );
    }
    return this.finish(answer, ctx);
  }

  /** Runs the steps from `from` until one answers, awaiting only the steps that return promises. */
  private run(ctx: RequestContext, from: number): MaybePromise<StoredAnswer> {
    const steps = this.steps;
    for (let i = from; i < steps.length; i++) {
      const outcome = (steps[i] as Step)(ctx);
      if (outcome instanceof Promise) {
        const next = i + 1;
        return outcome.then((answer) => answer ?? this.run(ctx, next));
      }
      if (outcome !== undefined) return outcome;
    }
    throw new Error('no step of the pipeline answered');
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

  private errorAnswer(error: unknown): StoredAnswer {
    return errorAnswerOf(error, this.options.onInternalError);
  }

  /**
   * Stamps an answer for the wire: the error envelope (request id, `doc_url`), `Request-Id`,
   * `Date`; a HEAD request gets the same status and headers without the body; a dropped answer
   * asks the adapter to cut the connection.
   */
  private finish(answer: StoredAnswer, ctx: RequestContext): PlainResponse {
    const observer = this.options.observer;
    if (observer !== undefined) observer.answered(ctx, answer, performance.now() - ctx.started);
    if (answer === DROPPED) return { status: 0, headers: {}, body: undefined, drop: true };
    const requestId = ctx.requestId;
    let body = answer.body;
    if (answer.error !== undefined) {
      const docsUrl = this.options.docsUrl ?? `${ctx.target.apiBaseUrl}/docs`;
      body = JSON.stringify(errorEnvelope(answer.error, { requestId, docsUrl }));
    }
    if (ctx.request.method === 'HEAD') body = undefined;
    const date = this.dateHeader();
    const headers: Record<string, string> =
      answer.headers === JSON_HEADERS ?
        { 'content-type': JSON_CONTENT_TYPE, 'Request-Id': requestId, Date: date }
      : { ...answer.headers, 'Request-Id': requestId, Date: date };
    return { status: answer.status, headers, body };
  }

  /** `Date` for the store clock's now as last seen (no statement), formatted once per second. */
  private dateHeader(): string {
    const now = this.options.store.approximateNow();
    const second = Math.floor(now / 1000);
    if (second !== this.dateSecond) {
      this.dateSecond = second;
      this.dateText = new Date(now).toUTCString();
    }
    return this.dateText;
  }
}
