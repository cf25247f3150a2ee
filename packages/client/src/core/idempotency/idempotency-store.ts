/** How long the server keeps an idempotency record, and so how long a stored key may be reused. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * Durable memory of the `Idempotency-Key` of each logical operation, so that a retry after a
 * crash and restart sends the same key. The request function writes the key before sending;
 * after a success (2xx) the entry stays until its ttl (24 h, like the server's record), so the
 * same `operationId` replays the first answer (`Idempotent-Replayed: true`) even when the caller
 * crashed before recording it; after a definitive refusal (a non-retryable 4xx) it is deleted,
 * so a corrected retry gets a fresh key. An `operationId` therefore names ONE logical operation:
 * use a new one for a new operation. The SDK deletes the entry of an acquire, claim or receive
 * once the lease it created ends (a later one under the same id is a new lease).
 * @example
 * const store = new FileIdempotencyStore({ directory: '.leasehold/idempotency' });
 * const lh = new Leasehold({ baseUrl: 'http://127.0.0.1:4010', apiKey: 'lh_test_admin', idempotencyStore: store, session: 'worker-7' });
 * await lh.tasks.claim(42, { etag, operationId: 'claim-task-42-run-7' });
 */
export interface IdempotencyStore {
  /** The live key stored for an operation, if any (expired entries read as absent). */
  get(operationId: string): Promise<string | undefined>;
  /** Stores (replacing) the key of an operation, valid for `ttlMs`; resolves once durable. */
  put(operationId: string, key: string, ttlMs: number): Promise<void>;
  /**
   * Returns the live key of an operation, or atomically stores `candidateKey` and returns it:
   * two callers racing on one operation id get the same key. Optional: without it,
   * `reserveIdempotencyKey` falls back to `get` then `put`.
   */
  reserve?(operationId: string, candidateKey: string, ttlMs: number): Promise<string>;
  /** Forgets an operation (no error when absent). */
  delete(operationId: string): Promise<void>;
}

/** The live key of an operation, or `candidateKey` after storing it (via `reserve` when the store has it). */
export async function reserveIdempotencyKey(
  store: IdempotencyStore,
  operationId: string,
  candidateKey: string,
  ttlMs: number = IDEMPOTENCY_KEY_TTL_MS,
): Promise<string> {
  if (store.reserve) return store.reserve(operationId, candidateKey, ttlMs);
  const existing = await store.get(operationId);
  if (existing !== undefined) return existing;
  await store.put(operationId, candidateKey, ttlMs);
  return candidateKey;
}
