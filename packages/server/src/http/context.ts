import type { Credential } from '../engine/index.js';
import type { FaultAction } from './faults.js';
import type { PlainRequest } from './plain.js';
import type { RouteSpec } from './routes.js';
import type { ValidatedInput } from './validation.js';

/** Where a request landed: the API path under its mount (`undefined`: under none) and that mount's base URL. */
export interface Target {
  /** The API path under the mount (`/v1/...`), or `undefined` when the request lies under no mount. */
  readonly path: string | undefined;
  /** The query string without `?` (`''` for none). */
  readonly search: string;
  /** The API base URL the request reached: origin and mount (`http://127.0.0.1:4010/api`). */
  readonly apiBaseUrl: string;
}

/**
 * The one request context the pipeline's steps read and fill in, in order: the request and
 * where it landed, then its route, credential, fault and validated input.
 */
export interface RequestContext {
  /** The request as the adapter handed it over. */
  readonly request: PlainRequest;
  /** This answer's `Request-Id`. */
  readonly requestId: string;
  /** Mount, API path and query. */
  readonly target: Target;
  /** The operation (set by the route step). */
  route: RouteSpec | undefined;
  /** Decoded path parameters (set by the route step). */
  params: Record<string, string>;
  /** The caller (set by the authenticate step; `undefined` for the test controls). */
  credential: Credential | undefined;
  /** What an armed fault does to this request (latency, drop), when one hit it. */
  fault: FaultAction | undefined;
  /** Path, query, headers and body, validated against the spec (set by the input step). */
  input: ValidatedInput | undefined;
  /** `performance.now()` when the pipeline took the request (0 when no observer measures it). */
  readonly started: number;
}
