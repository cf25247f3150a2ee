import type { MaybePromise, Store } from '../store/operations.js';
import { HttpError } from './http-error.js';
import type { PlainResponse } from './plain.js';
import type { StaticRoutes } from './steps/route.js';

/** Something that renders Prometheus metrics (`ServerMetrics`). */
export interface MetricsSource {
  text(): Promise<string>;
  readonly contentType: string;
}

/** What the operational endpoints read. */
export interface OperationalOptions {
  readonly store: Store;
  /** True once the server is shutting down (SIGTERM): `/readyz` then answers 503. */
  readonly draining: () => boolean;
  /** Served at `/metrics` when given. */
  readonly metrics?: MetricsSource | undefined;
}

const JSON_NO_STORE = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };

/** A 503 the load balancer reads as "not now" (the canonical envelope, `Retry-After: 1`). */
function notReady(message: string): HttpError {
  return new HttpError(503, 'service_unavailable', message, undefined, undefined, { 'Retry-After': '1', 'cache-control': 'no-store' });
}

/**
 * The operational endpoints (docs/operating.md), under every base path, without an API key:
 * `/healthz` (the process answers: liveness), `/readyz` (the store can serve: the database
 * answers and its migrations are current, and the server is not draining: readiness) and
 * `/metrics` (Prometheus text format).
 */
export function operationalRoutes(options: OperationalOptions): StaticRoutes {
  const { store, draining, metrics } = options;
  const routes: Record<string, () => MaybePromise<PlainResponse>> = {
    '/healthz': () => ({ status: 200, headers: JSON_NO_STORE, body: '{"status":"ok"}' }),
    '/readyz': () => {
      if (draining()) throw notReady('The server is shutting down.');
      const settle = (readiness: Awaited<ReturnType<Store['ready']>>): PlainResponse => {
        if (!readiness.ready) throw notReady(`The store is not ready: ${readiness.reason}.`);
        return { status: 200, headers: JSON_NO_STORE, body: `{"status":"ready","store":${JSON.stringify(readiness.detail)}}` };
      };
      const readiness = store.ready();
      return readiness instanceof Promise ? readiness.then(settle) : settle(readiness);
    },
  };
  if (metrics !== undefined) {
    routes['/metrics'] = async () => ({ status: 200, headers: { 'content-type': metrics.contentType, 'cache-control': 'no-store' }, body: await metrics.text() });
  }
  return routes;
}
