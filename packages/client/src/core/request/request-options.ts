import type { QueryValue } from './build-url.js';
import type { CallOptions } from './call-options.js';
import type { IdempotencyStore } from '../idempotency/idempotency-store.js';
import type { LeaseholdError } from '../errors/leasehold-error.js';
import type { Logger } from '../logger.js';
import type { MonotonicClock, WallClock } from '../monotonic-clock.js';
import type { Redactor } from '../redact.js';
import type { RetryPolicy } from '../retry/retry-policy.js';
import type { Sleep } from '../retry/sleep.js';
import type { Transport } from '../transport/transport.js';
import type { CallTracer, OperationLabel } from './call-tracer.js';

/** Default per-attempt timeout. */
export const DEFAULT_TIMEOUT_MS = 60_000;

/** An HTTP method the API uses. */
export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** What every hook event names. */
export interface AttemptEvent {
  method: HttpMethod;
  /** The API path (no base URL, no query). */
  path: string;
  /** 1-based attempt number. */
  attempt: number;
  /** The call's `Idempotency-Key`, if it sends one. */
  idempotencyKey: string | undefined;
}

/** Metrics hooks; a throwing hook is logged and ignored. */
export interface RequestHooks {
  /** An attempt is about to be sent. */
  onAttemptStart?(event: AttemptEvent): void;
  /** An attempt ended with an answer (`status`) or without one (`error`), after `durationMs`. */
  onAttemptEnd?(event: AttemptEvent & { durationMs: number; status: number | undefined; error: LeaseholdError | undefined; requestId: string | undefined }): void;
  /** The failed attempt will be retried after `delayMs`. */
  onRetryScheduled?(event: AttemptEvent & { delayMs: number; error: LeaseholdError }): void;
}

/** Settings shared by every request of a client. */
export interface RequestConfig {
  /** The API base URL with its prefix, without `/v1` (e.g. `https://host/api`). */
  baseUrl: string;
  /** The API key, sent as `Authorization: Bearer …` and masked everywhere else. */
  apiKey: string;
  /** Moves the bytes: `UndiciTransport` on Node, `FetchTransport` for fetch/MSW. */
  transport: Transport;
  /** Per-attempt timeout. Default 60 s. */
  timeoutMs?: number | undefined;
  /** Retries after the first attempt. Default: the policy's (2). */
  maxRetries?: number | undefined;
  /** Which failures retry and how long to wait. Default `new RetryPolicy({ maxRetries })`. */
  retryPolicy?: RetryPolicy | undefined;
  /** Where `operationId`s keep their keys across restarts; without one, `operationId` is ignored. */
  idempotencyStore?: IdempotencyStore | undefined;
  /** Lifetime of a stored key. Default 24 h, the server's. */
  idempotencyTtlMs?: number | undefined;
  /** Share one per client: it learns every token the client sees. */
  redactor?: Redactor | undefined;
  /** Receives redacted messages only. Default: silent. */
  logger?: Partial<Logger> | undefined;
  /** Metrics hooks (attempt start/end, retry scheduled). */
  hooks?: RequestHooks | undefined;
  /** Times attempts and deadlines. Default `performance.now()`. */
  clock?: MonotonicClock | undefined;
  /** Measures an HTTP-date `Retry-After`. Default `Date.now()`. */
  wallClock?: WallClock | undefined;
  /** Waits between attempts; must reject on abort. Inject in tests. */
  sleep?: Sleep | undefined;
  /** Makes fresh keys. Default `crypto.randomUUID()`. */
  generateIdempotencyKey?: (() => string) | undefined;
  /** Headers sent on every call (below the call's own headers). */
  defaultHeaders?: Readonly<Record<string, string | undefined>> | undefined;
  /** Appended to the `User-Agent` (e.g. `my-worker/1.2`). */
  userAgent?: string | undefined;
  /** Traces every call (the client's OpenTelemetry adapter). Default: none. */
  tracer?: CallTracer | undefined;
}

/** One call: its per-call options and what the resource layer adds. */
export interface RequestOptions extends CallOptions {
  /** Uppercase HTTP method; POST/PUT/PATCH/DELETE always carry an `Idempotency-Key`. */
  method: HttpMethod;
  /** The path under the base URL, segments already encoded (see `encodePath`). */
  path: string;
  /** Query parameters; `undefined`/`null` values are left out. */
  query?: Readonly<Record<string, QueryValue>> | undefined;
  /** JSON-encoded when present. */
  body?: unknown;
  /** Extra headers (`undefined` removes one); cannot set Authorization or Idempotency-Key. */
  headers?: Readonly<Record<string, string | undefined>> | undefined;
  /** Absolute deadline on the config's monotonic clock. */
  deadlineAt?: number | undefined;
  /**
   * Checks a 2xx answer before it is returned: a description of what is wrong makes the call
   * reject with `UnexpectedResponseError` (`unexpected_response_shape`, not retried).
   */
  accept?: ((answer: { status: number; data: unknown; headers: Readonly<Record<string, string>> }) => string | undefined) | undefined;
  /** The API operation this call is, for telemetry (span name and attributes). */
  operation?: OperationLabel | undefined;
}

/** A successful answer. */
export interface LeaseholdResponse<T> {
  /** HTTP status (2xx). */
  status: number;
  /** Lowercase names, unredacted (they may carry a `spooler-lease`). */
  headers: Readonly<Record<string, string>>;
  /** Parsed JSON, or `undefined` for 204 or an empty body. */
  data: T;
  /** The `Request-Id` header. */
  requestId: string | undefined;
  /** `Idempotent-Replayed: true`: this is the replay of an earlier request's answer. */
  replayed: boolean;
  /** Attempts made (1 = no retry). */
  attempts: number;
  /** The `Idempotency-Key` sent (on every attempt), if any. */
  idempotencyKey: string | undefined;
}

