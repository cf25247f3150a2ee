import { nodeBuiltin } from '../internal/node-builtins.js';
import type { OpenTelemetryApi } from './otel-api.js';

let loaded: OpenTelemetryApi | null | undefined;

/**
 * `@opentelemetry/api` if it is installed beside the client, else `undefined` — never an error.
 * It is an optional peer dependency, loaded on first use through Node's `require` (the API
 * ships CommonJS, and a copy loaded either way shares the one global provider registry), so a
 * missing package never breaks an import of the client. Outside Node: `undefined` (pass
 * `telemetry: { api }` there).
 */
export function loadOpenTelemetry(): OpenTelemetryApi | undefined {
  if (loaded === undefined) {
    loaded = null;
    try {
      const moduleApi = nodeBuiltin<{ createRequire(from: string): (id: string) => unknown }>('node:module');
      const api = moduleApi?.createRequire(import.meta.url)('@opentelemetry/api') as Partial<OpenTelemetryApi> | undefined;
      if (api && typeof api.trace?.getTracer === 'function' && typeof api.metrics?.getMeter === 'function') loaded = api as OpenTelemetryApi;
    } catch {
      // Not installed (or not loadable): no telemetry.
    }
  }
  return loaded ?? undefined;
}
