import { createRequire } from 'node:module';
import type * as prom from 'prom-client';

/**
 * The parts of prom-client the server uses, required by path through Node's CommonJS loader
 * (prom-client is CommonJS; an ESM `import` scans each module's source for export names first).
 * Its main entry also loads the push gateway (`http`, `https`), the cluster aggregator and every
 * default process metric with `@opentelemetry/api`: ~40 ms of a cold start that answers its first
 * `/healthz` in ~150 ms (docs/storage.md, "Speed: start-up"). These four modules take ~6 ms; the
 * default metrics are loaded later, off the start's path (`loadDefaultMetrics`). The types are
 * prom-client's own, so a `ServerMetrics` registry is still prom-client's `Registry`.
 */
const nodeRequire = createRequire(import.meta.url);

/** prom-client's `Registry`. */
export const Registry = nodeRequire('prom-client/lib/registry.js') as typeof prom.Registry;
/** prom-client's `Registry`. */
export type Registry = prom.Registry;
/** prom-client's `Counter`. */
export const Counter = nodeRequire('prom-client/lib/counter.js') as typeof prom.Counter;
/** prom-client's `Counter`. */
export type Counter<T extends string = string> = prom.Counter<T>;
/** prom-client's `Gauge`. */
export const Gauge = nodeRequire('prom-client/lib/gauge.js') as typeof prom.Gauge;
/** prom-client's `Gauge`. */
export type Gauge<T extends string = string> = prom.Gauge<T>;
/** prom-client's `Histogram`. */
export const Histogram = nodeRequire('prom-client/lib/histogram.js') as typeof prom.Histogram;
/** prom-client's `Histogram`. */
export type Histogram<T extends string = string> = prom.Histogram<T>;

/** prom-client's `collectDefaultMetrics`, loaded on its first call (once per process). */
export async function loadDefaultMetrics(): Promise<typeof prom.collectDefaultMetrics> {
  return nodeRequire('prom-client/lib/defaultMetrics.js') as typeof prom.collectDefaultMetrics;
}
