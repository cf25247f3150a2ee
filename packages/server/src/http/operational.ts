import type { MaybePromise, Readiness, Store } from '../store/operations.js';
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
  /** How long `/readyz` waits for the store before it answers 503 (ms, default 2000). */
  readonly readinessTimeoutMs?: number | undefined;
}

/** `/readyz`'s bound on the store's answer by default (ms). */
export const DEFAULT_READINESS_TIMEOUT_MS = 2000;

/** `readiness`, or not ready when it has not settled within `ms`. */
function within(readiness: Promise<Readiness>, ms: number): Promise<Readiness> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<Readiness>((resolve) => {
    timer = setTimeout(() => resolve({ ready: false, reason: `the database did not answer within ${ms} ms` }), ms);
  });
  return Promise.race([readiness, late]).finally(() => clearTimeout(timer));
}

const JSON_NO_STORE = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };

/** A 503 the load balancer reads as "not now" (the canonical envelope, `Retry-After: 1`). */
function notReady(message: string): HttpError {
  return new HttpError(503, 'service_unavailable', message, undefined, undefined, { 'Retry-After': '1', 'cache-control': 'no-store' });
}

/**
 * The operational endpoints (docs/operating.md), under every base path, without an API key:
 * `/healthz` (the process answers: liveness), `/readyz` (the store can serve: the database
 * answers within `readinessTimeoutMs` and its migrations are current, and the server is not
 * draining: readiness) and `/metrics` (Prometheus text format; it never waits for the pool,
 * `ServerMetrics.text`). None of them authenticates, and `/healthz` never reads the store.
 */
export function operationalRoutes(options: OperationalOptions): StaticRoutes {
  const { store, draining, metrics } = options;
  const readinessTimeoutMs = options.readinessTimeoutMs ?? DEFAULT_READINESS_TIMEOUT_MS;
  const routes: Record<string, () => MaybePromise<PlainResponse>> = {
    '/healthz': () => ({ status: 200, headers: JSON_NO_STORE, body: '{"status":"ok"}' }),
    '/readyz': () => {
      if (draining()) throw notReady('The server is shutting down.');
      const settle = (readiness: Awaited<ReturnType<Store['ready']>>): PlainResponse => {
        if (!readiness.ready) throw notReady(`The store is not ready: ${readiness.reason}.`);
        return { status: 200, headers: JSON_NO_STORE, body: `{"status":"ready","store":${JSON.stringify(readiness.detail)}}` };
      };
      const readiness = store.ready();
      return readiness instanceof Promise ? within(readiness, readinessTimeoutMs).then(settle) : settle(readiness);
    },
  };
  if (metrics !== undefined) {
    routes['/metrics'] = async () => ({ status: 200, headers: { 'content-type': metrics.contentType, 'cache-control': 'no-store' }, body: await metrics.text() });
  }
  return routes;
}
