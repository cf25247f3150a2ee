import { ApiError } from '../errors/api-error.js';
import { assertValidIdempotencyKey, generateIdempotencyKey, isValidIdempotencyKey } from './idempotency-key.js';
import { IDEMPOTENCY_KEY_TTL_MS, reserveIdempotencyKey } from './idempotency-store.js';
import { LeaseholdError } from '../errors/leasehold-error.js';
import type { Logger } from '../logger.js';
import type { RequestConfig, RequestOptions } from '../request/request-options.js';
import type { RetryPolicy } from '../retry/retry-policy.js';

/**
 * The key a call sends, and how to forget it after a definitive refusal. A success keeps the
 * stored key until its ttl, so the same `operationId` replays the first answer.
 */
export interface ResolvedIdempotencyKey {
  key: string | undefined;
  /** Deletes the stored key (only when the call has an `operationId` and a store); never throws. Used after a definitive 4xx. */
  forget?: () => Promise<void>;
}

/** Whether the call's key goes through the idempotency store (a mutating call with an `operationId` and a store). */
export function needsIdempotencyStore(config: RequestConfig, options: RequestOptions): boolean {
  return options.operationId !== undefined && config.idempotencyStore !== undefined && options.method !== 'GET' && options.method !== 'HEAD';
}

/**
 * {@link resolveIdempotencyKey} for a call that needs no store (see {@link needsIdempotencyStore}),
 * without waiting: the caller's key, else a fresh one; GET/HEAD get one only when given.
 */
export function resolveIdempotencyKeyNow(config: RequestConfig, options: RequestOptions, log: Logger): ResolvedIdempotencyKey {
  if (options.idempotencyKey !== undefined) assertValidIdempotencyKey(options.idempotencyKey);
  if (options.method === 'GET' || options.method === 'HEAD') return { key: options.idempotencyKey };
  if (options.operationId !== undefined) log.warn('operationId given but no idempotencyStore configured: the key will not survive a restart.');
  return { key: options.idempotencyKey ?? (config.generateIdempotencyKey ?? generateIdempotencyKey)() };
}

/** The call's key: caller's, else stored under `operationId`, else fresh; GET/HEAD get one only when given. */
export async function resolveIdempotencyKey(
  config: RequestConfig,
  options: RequestOptions,
  log: Logger,
): Promise<ResolvedIdempotencyKey> {
  const { operationId } = options;
  const store = config.idempotencyStore;
  if (operationId === undefined || store === undefined || !needsIdempotencyStore(config, options)) return resolveIdempotencyKeyNow(config, options, log);
  if (options.idempotencyKey !== undefined) assertValidIdempotencyKey(options.idempotencyKey);
  const generate = config.generateIdempotencyKey ?? generateIdempotencyKey;
  const ttlMs = config.idempotencyTtlMs ?? IDEMPOTENCY_KEY_TTL_MS;
  let key: string;
  try {
    if (options.idempotencyKey !== undefined) {
      key = options.idempotencyKey;
      await store.put(operationId, key, ttlMs);
    } else {
      key = await reserveIdempotencyKey(store, operationId, generate(), ttlMs);
    }
  } catch (cause) {
    throw new LeaseholdError(`Could not persist the idempotency key of operation ${operationId}; nothing was sent.`, { cause });
  }
  if (typeof key !== 'string' || !isValidIdempotencyKey(key)) {
    throw new LeaseholdError(`The idempotency store returned an unusable key for operation ${operationId} (not 1–255 printable ASCII); nothing was sent.`);
  }
  const forget = async (): Promise<void> => {
    try {
      await store.delete(operationId);
    } catch (error) {
      log.warn(`Could not delete the stored idempotency key of operation ${operationId}; it expires on its own.`, { error });
    }
  };
  return { key, forget };
}

/** A definitive refusal: a non-retryable 4xx. The stored key may go; retrying it would only replay the refusal. */
export function isDefinitive(error: LeaseholdError, policy: RetryPolicy): boolean {
  return error instanceof ApiError && error.status >= 400 && error.status < 500 && !policy.isRetryable(error);
}

