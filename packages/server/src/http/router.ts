import type { OperationId } from '@leasehold/protocol';
import { HttpError } from './http-error.js';
import { routeSpecs, type RouteSpec } from './routes.js';

/** A request matched to its operation, with decoded path parameters. */
export interface RouteMatch {
  route: RouteSpec;
  params: Record<string, string>;
}

interface Node {
  literal: Map<string, Node>;
  param?: { name: string; node: Node };
  methods: Map<string, RouteSpec>;
}

const newNode = (): Node => ({ literal: new Map(), methods: new Map() });

/** Matches paths (already stripped of any base path) to operations of the spec. */
export class Router {
  private readonly root = newNode();

  /** Builds the trie from the given operations (all of the spec by default). */
  constructor(routes: RouteSpec[] = routeSpecs) {
    for (const route of routes) {
      let node = this.root;
      for (const segment of route.segments) {
        const param = /^\{(.+)\}$/.exec(segment);
        if (param) {
          node.param ??= { name: param[1]!, node: newNode() };
          node = node.param.node;
        } else {
          let next = node.literal.get(segment);
          if (!next) node.literal.set(segment, (next = newNode()));
          node = next;
        }
      }
      node.methods.set(route.method, route);
    }
  }

  /**
   * Finds the operation for `method` and the raw (still percent-encoded) `path`. Path
   * parameters are split on raw `/` before decoding, so keys holding `%2F` stay one segment.
   * HEAD finds the GET operation of its path (answered without a body, RFC 9110 §9.3.2).
   */
  match(method: string, path: string): RouteMatch {
    const params: Record<string, string> = {};
    let node: Node | undefined = this.root;
    // The segments after the first `/` (what `path.split('/').slice(1)` gives), without the arrays.
    let start = path.indexOf('/') + 1;
    while (start > 0) {
      const end = path.indexOf('/', start);
      const segment = end === -1 ? path.slice(start) : path.slice(start, end);
      start = end + 1;
      const literal: Node | undefined = node.literal.get(segment);
      if (literal) {
        node = literal;
        continue;
      }
      if (!node.param || segment === '') {
        node = undefined;
        break;
      }
      params[node.param.name] = decodeSegment(segment, node.param.name);
      node = node.param.node;
    }
    if (!node || node.methods.size === 0) {
      throw new HttpError(404, 'route_not_found', `No operation at ${method} ${truncate(path)}.`);
    }
    const route = node.methods.get(method) ?? (method === 'HEAD' ? node.methods.get('GET') : undefined);
    if (!route) {
      const methods = [...node.methods.keys()];
      if (methods.includes('GET')) methods.push('HEAD');
      const allow = methods.join(', ');
      throw new HttpError(405, 'method_not_allowed', `${method} is not allowed here; use ${allow}.`, undefined, undefined, {
        Allow: allow,
      });
    }
    return { route, params };
  }
}

function decodeSegment(segment: string, name: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new HttpError(400, 'invalid_request', `The path parameter ${name} is not valid percent-encoding.`, name);
  }
}

function truncate(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

const specRouter = new Router();

/**
 * The operation a request names (`method` and the API path under its mount, query allowed), or
 * `undefined` when it names none — the server's own routing, for adapters (the MSW lease watch).
 * @example
 * operationAt('POST', '/v1/tasks/42/claim'); // 'claimTask'
 */
export function operationAt(method: string, path: string): OperationId | undefined {
  const queryAt = path.indexOf('?');
  try {
    return specRouter.match(method.toUpperCase(), queryAt === -1 ? path : path.slice(0, queryAt)).route.operationId;
  } catch {
    return undefined;
  }
}
