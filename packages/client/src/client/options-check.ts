import { parseBaseUrl } from '@leasehold/protocol';
import {
  assertSendable,
  check,
  checkFunction,
  checkNumber,
  checkObject,
  isCount,
  isNonNegativeFinite,
  isPositiveFinite,
  isPositiveOrInfinite,
} from '../internal/argument-checks.js';
import { InvalidArgumentError } from '../core/errors/invalid-argument-error.js';
import type { RequestHooks } from '../core/request/request-options.js';
import { checkKnownKeys } from '../internal/known-names.js';
import type { RenewalTuning } from '../leases/scheduler/renewal-scheduler-options.js';
import { SPACE_TTL_MAX_SECONDS, SPACE_TTL_MIN_SECONDS } from '../leases/lease-kind.js';
import { MAX_CLAIM_IDS_PER_HEARTBEAT } from '../leases/scheduler/heartbeat-sending.js';
import type { LeaseholdOptions } from './leasehold-options.js';

/** Whether `baseUrl` is an absolute http(s) URL the client can append `/v1/...` to (the protocol's base-URL rule, and no bare `?`/`#`). */
function isBaseUrl(value: unknown): boolean {
  if (typeof value !== 'string' || value.includes('?') || value.includes('#')) return false;
  try {
    return parseBaseUrl(value).origin !== 'null';
  } catch {
    return false;
  }
}

/** Every option of `new Leasehold()` (the compiler keeps the list whole). */
const OPTION_NAMES = Object.keys({
  baseUrl: true,
  apiKey: true,
  session: true,
  fetch: true,
  dispatcher: true,
  maxRetries: true,
  timeoutMs: true,
  idempotencyStore: true,
  heartbeatTtlSeconds: true,
  logger: true,
  logLevel: true,
  telemetry: true,
  hooks: true,
  userAgent: true,
  renewal: true,
} satisfies Record<keyof LeaseholdOptions, true>);

const RENEWAL_NAMES = Object.keys({
  now: true,
  random: true,
  jitter: true,
  isTransient: true,
  retry: true,
  attemptTimeoutMs: true,
  driftMarginMs: true,
  timers: true,
  maxClaimIdsPerHeartbeat: true,
} satisfies Record<keyof RenewalTuning, true>);

const HOOK_NAMES = Object.keys({ onAttemptStart: true, onAttemptEnd: true, onRetryScheduled: true } satisfies Record<keyof RequestHooks, true>);

/** A base URL that already ends in the version prefix the client adds (`…/v1`): the requests would go to `/v1/v1/…`. */
function endsInVersion(baseUrl: string): boolean {
  return /\/v1\/*$/i.test(baseUrl);
}

/**
 * Validates every option of `new Leasehold()` at construction, so a bad one fails there with an
 * {@link InvalidArgumentError} naming the option and the value (never the API key), instead of
 * a `TypeError` — or a silently wrong client — later.
 */
export function checkLeaseholdOptions(options: LeaseholdOptions): void {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidArgumentError('options', 'Leasehold: options must be an object with at least baseUrl and apiKey.');
  }
  checkKnownKeys(options, OPTION_NAMES, 'Leasehold');
  check(isBaseUrl(options.baseUrl), 'baseUrl', 'an absolute http(s) URL with the API prefix and no query, such as "https://host/api"', options.baseUrl);
  if (endsInVersion(options.baseUrl)) {
    const without = options.baseUrl.replace(/\/v1\/*$/i, '');
    throw new InvalidArgumentError(
      'baseUrl',
      `Leasehold: baseUrl must not end in /v1: the client adds /v1 to every path itself (it would call ${without}/v1/v1/...); pass ${JSON.stringify(without)}.`,
    );
  }
  if (typeof options.apiKey !== 'string' || options.apiKey === '') {
    throw new InvalidArgumentError('apiKey', 'Leasehold: apiKey is required (a non-empty string).');
  }
  if (!/^[\x21-\x7e]+$/.test(options.apiKey)) {
    throw new InvalidArgumentError('apiKey', 'Leasehold: apiKey must be visible ASCII without spaces, as it is sent in the Authorization header (its value is not shown).');
  }
  if (options.session !== undefined) {
    check(typeof options.session === 'string' && options.session.length >= 1 && options.session.length <= 200, 'session', 'a string of 1–200 characters', options.session);
    assertSendable(options.session, 'session', 'header');
  }
  checkFunction(options.fetch, 'fetch');
  if (options.dispatcher !== undefined) {
    checkObject(options.dispatcher, 'dispatcher');
    check(typeof (options.dispatcher as { dispatch?: unknown }).dispatch === 'function', 'dispatcher', 'an undici Dispatcher (with dispatch())', options.dispatcher);
    check(options.fetch === undefined, 'dispatcher', 'left out when fetch is given (the client sends through one or the other)', 'both');
  }
  checkNumber(options.maxRetries, 'maxRetries', 'a non-negative integer', isCount);
  checkNumber(options.timeoutMs, 'timeoutMs', 'a positive number of milliseconds (Infinity: no timeout)', isPositiveOrInfinite);
  checkNumber(
    options.heartbeatTtlSeconds,
    'heartbeatTtlSeconds',
    `a number of seconds between ${SPACE_TTL_MIN_SECONDS} and ${SPACE_TTL_MAX_SECONDS}`,
    (n) => n >= SPACE_TTL_MIN_SECONDS && n <= SPACE_TTL_MAX_SECONDS,
  );
  const store = options.idempotencyStore as unknown as Record<string, unknown> | undefined;
  if (store !== undefined) {
    checkObject(store, 'idempotencyStore');
    for (const method of ['get', 'put', 'delete'] as const) {
      check(typeof store[method] === 'function', 'idempotencyStore', `an IdempotencyStore (with ${method}())`, store);
    }
    checkFunction(store.reserve, 'idempotencyStore.reserve');
  }
  const logger = options.logger as Record<string, unknown> | undefined;
  if (logger !== undefined) {
    checkObject(logger, 'logger');
    for (const level of ['debug', 'info', 'warn', 'error']) checkFunction(logger[level], `logger.${level}`);
  }
  if (options.logLevel !== undefined) {
    check(['debug', 'info', 'warn', 'error', 'off'].includes(options.logLevel as string), 'logLevel', '"debug", "info", "warn", "error" or "off"', options.logLevel);
  }
  if (options.telemetry !== undefined && options.telemetry !== false) {
    const api = (options.telemetry as { api?: { trace?: unknown; metrics?: unknown } } | null)?.api;
    check(typeof api === 'object' && api !== null && typeof api.trace === 'object' && typeof api.metrics === 'object', 'telemetry', 'false or { api } with the @opentelemetry/api module', options.telemetry);
  }
  const hooks = options.hooks as Record<string, unknown> | undefined;
  if (hooks !== undefined) {
    checkObject(hooks, 'hooks');
    checkKnownKeys(hooks, HOOK_NAMES, 'Leasehold', 'hooks.');
    for (const hook of ['onAttemptStart', 'onAttemptEnd', 'onRetryScheduled']) checkFunction(hooks[hook], `hooks.${hook}`);
  }
  if (options.userAgent !== undefined) {
    check(typeof options.userAgent === 'string', 'userAgent', 'a string', options.userAgent);
    if (options.userAgent !== '') assertSendable(options.userAgent, 'userAgent', 'header');
  }
  checkRenewal(options.renewal as Record<string, unknown> | undefined);
}

function checkRenewal(renewal: Record<string, unknown> | undefined): void {
  if (renewal === undefined) return;
  checkObject(renewal, 'renewal');
  checkKnownKeys(renewal, RENEWAL_NAMES, 'Leasehold', 'renewal.');
  checkNumber(renewal.jitter, 'renewal.jitter', 'a number from 0 to under 1', (n) => n >= 0 && n < 1);
  checkNumber(renewal.attemptTimeoutMs, 'renewal.attemptTimeoutMs', 'a positive number of milliseconds', isPositiveFinite);
  checkNumber(
    renewal.maxClaimIdsPerHeartbeat,
    'renewal.maxClaimIdsPerHeartbeat',
    `an integer from 1 to ${MAX_CLAIM_IDS_PER_HEARTBEAT}`,
    (n) => Number.isSafeInteger(n) && n >= 1 && n <= MAX_CLAIM_IDS_PER_HEARTBEAT,
  );
  for (const fn of ['now', 'random', 'isTransient', 'driftMarginMs']) checkFunction(renewal[fn], `renewal.${fn}`);
  const retry = renewal.retry as Record<string, unknown> | undefined;
  if (retry !== undefined) {
    checkObject(retry, 'renewal.retry');
    for (const delay of ['initialDelayMs', 'maxDelayMs', 'minDelayMs']) {
      checkNumber(retry[delay], `renewal.retry.${delay}`, 'a non-negative number of milliseconds', isNonNegativeFinite);
    }
  }
  const timers = renewal.timers as Record<string, unknown> | undefined;
  if (timers !== undefined) {
    checkObject(timers, 'renewal.timers');
    check(typeof timers.setTimeout === 'function' && typeof timers.clearTimeout === 'function', 'renewal.timers', 'an object with setTimeout() and clearTimeout()', timers);
  }
}
