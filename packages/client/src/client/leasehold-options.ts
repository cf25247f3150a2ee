import type { FetchLike } from '../core/transport/fetch-transport.js';
import type { IdempotencyStore } from '../core/idempotency/idempotency-store.js';
import type { Logger, LogThreshold } from '../core/logger.js';
import type { RequestHooks } from '../core/request/request-options.js';
import type { RenewalTuning } from '../leases/scheduler/renewal-scheduler-options.js';
import type { OpenTelemetryApi } from '../telemetry/otel-api.js';

/**
 * An undici `Dispatcher` (Agent, Pool, MockAgent, `LeaseholdDispatcher`, ...), as far as the client
 * uses one; declared structurally so the typings need no undici (nor Node) types.
 */
export interface DispatcherLike {
  dispatch(options: object, handler: object): boolean;
}

/** The default batch-heartbeat `ttl`, in seconds: space claims live this long between heartbeats. */
export const DEFAULT_HEARTBEAT_TTL_SECONDS = 30;

/** Options of a {@link Leasehold} client. */
export interface LeaseholdOptions {
  /** The API base URL with its prefix, without `/v1` (e.g. `https://host/api`). */
  baseUrl: string;
  /** The API key (`Authorization: Bearer …`; masked in every message and log). */
  apiKey: string;
  /**
   * This process's session, recorded by every acquire and sent with every heartbeat, so the
   * heartbeat renews only this process's leases. Default: a random `sess_…` per client. Give a
   * worker a stable one to replay an acquire (`operationId`) after a restart and keep renewing it.
   */
  session?: string | undefined;
  /** A fetch to send requests with (MSW, a test handler, a non-Node runtime); uses core's `FetchTransport`. */
  fetch?: FetchLike | undefined;
  /** An undici dispatcher (Agent, Pool, MockAgent, ...) to send through; never closed by the client. Default: a keep-alive Agent the client owns. */
  dispatcher?: DispatcherLike | undefined;
  /** Retries of a failed call (connection errors, timeouts, 408, 429, 5xx, 409 `idempotency_in_flight`). Default 2. */
  maxRetries?: number | undefined;
  /** Per-attempt timeout in ms. Default 60 000. */
  timeoutMs?: number | undefined;
  /** Where `operationId` keys are stored before sending. Default: a `MemoryIdempotencyStore`; use a `FileIdempotencyStore` to survive restarts. */
  idempotencyStore?: IdempotencyStore | undefined;
  /**
   * The batch heartbeat's `ttl` in seconds (5–600, default 30): held space claims are extended
   * to now + this on every heartbeat, sent about every third of it. It is also the default
   * `leaseSeconds` of a space claim. Task claims (15 min) and spool leases (their queue's
   * timeout) keep their own lengths.
   */
  heartbeatTtlSeconds?: number | undefined;
  /** Receives redacted log lines (`console` fits). Default: silent. */
  logger?: Partial<Logger> | undefined;
  /**
   * The least level given to `logger`: `debug` (every attempt), `info` (default: retries, releases
   * of leases the client gave up on), `warn` (give-ups, lost leases, failing heartbeats), `error`,
   * or `off`. An expected answer — `tryAcquire()` finding the key held, a 404 you asked for — is
   * not a failure and is logged at `debug` only.
   */
  logLevel?: LogThreshold | undefined;
  /**
   * OpenTelemetry: a span per API call and the client's metrics (see the README's
   * *Observability*). Default: `@opentelemetry/api` when it is installed (Node), else none;
   * `{ api }` to pass the module yourself (the browser build needs that), `false` for none.
   */
  telemetry?: { api: OpenTelemetryApi } | false | undefined;
  /** Metrics hooks of every request attempt. */
  hooks?: RequestHooks | undefined;
  /** Appended to the `User-Agent`. */
  userAgent?: string | undefined;
  /** Advanced: renewal scheduler tuning (jitter, retry backoff, drift margin, timers). */
  renewal?: RenewalTuning | undefined;
}
