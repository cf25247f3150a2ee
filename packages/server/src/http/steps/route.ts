import type { MaybePromise } from '../../store/operations.js';
import type { StoredAnswer } from '../answer.js';
import type { PlainResponse } from '../plain.js';
import { HttpError } from '../http-error.js';
import type { Router } from '../router.js';
import type { Step } from './step.js';

/** What a static route knows of its request. */
export interface MountedRequest {
  /** The API base URL the request reached: origin and mount (`http://127.0.0.1:4010/api`). */
  apiBaseUrl: string;
  /** The path of the mount the request reached (`''` or `/api`). */
  mount: string;
  /** For a prefix route (`/docs/client/*`): the path beneath the prefix (`classes/Leasehold.html`; `''` for the prefix itself). */
  rest: string;
}

/**
 * Non-API GET routes under each mount (`/openapi.json`, `/docs`), answered before routing. A key
 * ending in `/*` is a prefix route: it answers every path beneath it (`/docs/client/*`).
 */
export type StaticRoutes = Readonly<Record<string, (request: MountedRequest) => MaybePromise<PlainResponse>>>;

function stored(plain: PlainResponse): StoredAnswer {
  return { status: plain.status, headers: plain.headers, body: plain.body };
}

/** Answers a static route (GET or HEAD). */
export function serveStatic(routes: StaticRoutes): Step {
  const prefixes = Object.keys(routes)
    .filter((key) => key.endsWith('/*'))
    .map((key) => ({ prefix: key.slice(0, -1), answer: routes[key]! }))
    .sort((a, b) => b.prefix.length - a.prefix.length);
  return (ctx) => {
    const path = ctx.target.path;
    if (path === undefined || (ctx.request.method !== 'GET' && ctx.request.method !== 'HEAD')) return undefined;
    let special = routes[path];
    let rest = '';
    if (special === undefined) {
      const prefixed = prefixes.find((candidate) => path.startsWith(candidate.prefix));
      if (prefixed === undefined) return undefined;
      special = prefixed.answer;
      rest = path.slice(prefixed.prefix.length);
    }
    const plain = special({ apiBaseUrl: ctx.target.apiBaseUrl, mount: mountOf(ctx.target.apiBaseUrl), rest });
    return plain instanceof Promise ? plain.then(stored) : stored(plain);
  };
}

/** The path part of an API base URL (`http://host:1/api` → `/api`, `http://host:1` → `''`). */
function mountOf(apiBaseUrl: string): string {
  const scheme = apiBaseUrl.indexOf('//');
  const slash = apiBaseUrl.indexOf('/', scheme === -1 ? 0 : scheme + 2);
  return slash === -1 ? '' : apiBaseUrl.slice(slash);
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
