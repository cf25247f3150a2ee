import type { DefaultBodyType, HttpHandler, HttpResponseResolver, RequestHandlerOptions } from 'msw';
import { http } from 'msw/core/http';
import { parseBaseUrl } from './base-url.js';
import type { paths } from '@leasehold/protocol';

/** The HTTP methods the Leasehold API uses, as keys of the generated `paths`. */
export type LeaseholdMethod = 'get' | 'put' | 'post' | 'patch' | 'delete';

/** Every API path template (`/v1/spaces/{spaceId}/claims`); the `/_control` paths are left out. */
export type LeaseholdApiPath = Extract<keyof paths, `/v1/${string}`>;

/** The API path templates that have an operation for `M`. */
export type LeaseholdPath<M extends LeaseholdMethod> = {
  [P in LeaseholdApiPath]: [NonNullable<paths[P][M]>] extends [never] ? never : P;
}[LeaseholdApiPath];

/** The generated operation behind `M P`. */
export type LeaseholdOperation<M extends LeaseholdMethod, P extends LeaseholdPath<M>> = NonNullable<paths[P][M]>;

/** Path parameters as MSW hands them over: always strings (`taskId: '42'`). */
export type LeaseholdPathParams<Op> = Op extends { parameters: { path: infer Params } }
  ? { [K in keyof Params]: string }
  : Record<never, string>;

/** The JSON request body of an operation (`undefined` when it takes none). */
export type LeaseholdRequestBody<Op> = Op extends { requestBody?: infer Body }
  ? [NonNullable<Body>] extends [never]
    ? undefined
    : NonNullable<Body> extends { content: { 'application/json': infer Json } }
      ? Json
      : undefined
  : undefined;

type JsonContent<Response> = Response extends { content: { 'application/json': infer Json } } ? Json : null;

/** Every JSON body the operation may answer with (success bodies, the error envelope; `null` for empty answers). */
export type LeaseholdResponseBody<Op> = Op extends { responses: infer Responses }
  ? { [Status in keyof Responses]: JsonContent<Responses[Status]> }[keyof Responses]
  : never;

/**
 * An MSW resolver typed from the spec: `params` holds the path parameters, `request.json()`
 * resolves to the operation's request body, and `HttpResponse.json(...)` must return one of
 * its response bodies. Return nothing to let the request through to the stateful mock.
 */
export type LeaseholdResolver<M extends LeaseholdMethod, P extends LeaseholdPath<M>> = HttpResponseResolver<
  LeaseholdPathParams<LeaseholdOperation<M, P>>,
  Extract<LeaseholdRequestBody<LeaseholdOperation<M, P>>, DefaultBodyType>,
  Extract<LeaseholdResponseBody<LeaseholdOperation<M, P>>, DefaultBodyType>
>;

/** Builds a typed MSW handler for one method. */
export type LeaseholdHandlerFactory<M extends LeaseholdMethod> = <P extends LeaseholdPath<M>>(
  path: P,
  resolver: LeaseholdResolver<M, P>,
  options?: RequestHandlerOptions,
) => HttpHandler;

/**
 * MSW's `http`, typed by the Leasehold spec: paths are the spec's templates
 * (`/v1/tasks/{taskId}/claim`), bodies and answers are checked against it.
 */
export interface LeaseholdHttp {
  get: LeaseholdHandlerFactory<'get'>;
  post: LeaseholdHandlerFactory<'post'>;
  put: LeaseholdHandlerFactory<'put'>;
  patch: LeaseholdHandlerFactory<'patch'>;
  delete: LeaseholdHandlerFactory<'delete'>;
  /** The MSW path pattern a template turns into (`https://api.test/v1/tasks/:taskId/claim`). */
  pattern(path: LeaseholdApiPath): string;
  /** The base URL the handlers are bound to; `undefined` for any origin and mount prefix. */
  readonly baseUrl: string | undefined;
}

/** Options of `createLeaseholdHttp`. */
export interface LeaseholdHttpOptions {
  /** Match only under this base URL (`https://api.test/api`). Default: any origin and mount prefix. */
  baseUrl?: string | URL;
}

/**
 * Typed MSW handlers for one-off answers, inferred from the spec, bound to a base URL.
 * Layer them over the stateful handlers with `mswServer.use(...)`.
 * @example
 * const lh = createLeaseholdHttp({ baseUrl: 'https://api.test' });
 * mswServer.use(
 *   lh.post('/v1/claims/heartbeat', async ({ request }) => {
 *     const { ttl } = await request.json(); // typed HeartbeatRequest
 *     return HttpResponse.json({ object: 'list', results: [] });
 *   }),
 * );
 * @see https://mswjs.io/docs/api/http
 */
export function createLeaseholdHttp(options: LeaseholdHttpOptions = {}): LeaseholdHttp {
  const baseUrl = options.baseUrl === undefined ? undefined : checkedBase(options.baseUrl);
  const prefix = baseUrl ?? '*';
  const pattern = (path: LeaseholdApiPath) => prefix + path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
  const factory =
    <M extends LeaseholdMethod>(method: M): LeaseholdHandlerFactory<M> =>
    (path, resolver, handlerOptions) =>
      http[method](pattern(path), withOwnBody(resolver as HttpResponseResolver), handlerOptions);
  return {
    get: factory('get'),
    post: factory('post'),
    put: factory('put'),
    patch: factory('patch'),
    delete: factory('delete'),
    pattern,
    baseUrl,
  };
}

/**
 * Typed MSW handlers that match the API under any origin and mount prefix.
 * Use `createLeaseholdHttp({ baseUrl })` (or `createLeaseholdHandlers(...).http`) to bind them.
 * @example
 * mswServer.use(leaseholdHttp.get('/v1/tasks/{taskId}', () => HttpResponse.json(task)));
 */
export const leaseholdHttp: LeaseholdHttp = createLeaseholdHttp();

/**
 * MSW hands every handler the same `Request`: a resolver that reads the body and then returns
 * nothing would leave the stateful handler an empty one. Each typed resolver reads a clone.
 */
function withOwnBody(resolver: HttpResponseResolver): HttpResponseResolver {
  return (info) => {
    const request = info.request.bodyUsed ? info.request : info.request.clone();
    return resolver(Object.create(info, { request: { value: request, enumerable: true } }) as typeof info);
  };
}

/** MSW reads handler paths as path-to-regexp patterns; refuse bases it would misread. */
function checkedBase(input: string | URL): string {
  const base = parseBaseUrl(input);
  const host = base.origin.replace(/^https?:\/\//, '').replace(/:\d+$/, '');
  if (/[^A-Za-z0-9._~%!$&'=/-]/.test(base.pathPrefix) || /[^A-Za-z0-9.-]/.test(host)) {
    throw new TypeError(`Typed overrides cannot match the base URL ${base.href}: use a plain host name and path`);
  }
  return base.href;
}
