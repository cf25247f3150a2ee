import type { MaybePromise } from '../../store/index.js';
import type { StoredAnswer } from '../answer.js';
import type { PlainResponse } from '../plain.js';
import { HttpError } from '../http-error.js';
import type { Router } from '../router.js';
import type { Step } from './step.js';

/** What a static route knows of its request. */
export interface MountedRequest {
  /** The API base URL the request reached: origin and mount (`http://127.0.0.1:4010/api`). */
  apiBaseUrl: string;
}

/** Non-API GET routes under each mount (`/openapi.json`, `/docs`), answered before routing. */
export type StaticRoutes = Readonly<Record<string, (request: MountedRequest) => MaybePromise<PlainResponse>>>;

function stored(plain: PlainResponse): StoredAnswer {
  return { status: plain.status, headers: plain.headers, body: plain.body };
}

/** Answers a static route (GET or HEAD). */
export function serveStatic(routes: StaticRoutes): Step {
  return (ctx) => {
    const path = ctx.target.path;
    const special = path === undefined ? undefined : routes[path];
    if (special === undefined || (ctx.request.method !== 'GET' && ctx.request.method !== 'HEAD')) return undefined;
    const plain = special({ apiBaseUrl: ctx.target.apiBaseUrl });
    return plain instanceof Promise ? plain.then(stored) : stored(plain);
  };
}

/** Finds the operation (404 outside every mount or route, 405 for another method); the controls only when served. */
export function route(router: Router, controlEnabled: boolean): Step {
  return (ctx) => {
    const path = ctx.target.path;
    if (path === undefined) throw new HttpError(404, 'route_not_found', 'No operation at this path.');
    const match = router.match(ctx.request.method, path);
    if (match.route.isControl && !controlEnabled) {
      throw new HttpError(404, 'route_not_found', 'No operation at this path (start the server with --control).');
    }
    ctx.route = match.route;
    ctx.params = match.params;
    return undefined;
  };
}
