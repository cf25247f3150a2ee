/**
 * API operations through a store the way the HTTP pipeline runs them (no HTTP): authenticate
 * the `Authorization` header, take from the rate limit, then one `store.execute` with the
 * request's `Idempotency-Key` and fingerprint where the operation takes one, encoding the
 * outcome into a `{ status, body }` answer (success or envelope) inside the unit.
 */
import { randomUUID } from 'node:crypto';
import {
  EngineError,
  errorStatusByCode,
  requestFingerprint,
  type Credential,
} from '../../packages/server/src/engine/index.js';
import type { MaybePromise, Operations, Store } from '../../packages/server/src/store/index.js';

/** What the stand-in pipeline answers. */
export interface Answer {
  status: number;
  body: string | undefined;
}

function encode(outcome: { ok: true; value: unknown } | { ok: false; error: unknown }, status: number): Answer {
  if (outcome.ok) return { status: outcome.value === null ? 204 : status, body: outcome.value === undefined ? undefined : JSON.stringify(outcome.value) };
  const error = outcome.error;
  if (error instanceof EngineError) {
    return { status: errorStatusByCode[error.code], body: JSON.stringify({ error: { code: error.code, message: error.message, param: error.param } }) };
  }
  throw error;
}

/** One API operation: its id, path and body (for the fingerprint) and what it runs. */
export interface ApiCall<R> {
  operationId: string;
  path: string;
  body: unknown;
  /** Send a fresh `Idempotency-Key` (as the SDK does for every write). */
  idempotent: boolean;
  status?: number;
  run: (ops: Operations, credential: Credential) => MaybePromise<R>;
}

/** A caller of one store with one API key. */
export interface StoreCaller {
  /** Run one API operation; throws when it does not answer 2xx. */
  call<R>(op: ApiCall<R>): Promise<Answer>;
}

/** The stand-in pipeline for `store` and `apiKey`. */
export function storeCaller(store: Store, apiKey: string): StoreCaller {
  const header = `Bearer ${apiKey}`;
  return {
    async call(op) {
      const auth = await store.authenticate(header);
      if (!auth.ok) throw new Error(`authenticate: ${auth.status} ${auth.code}`);
      const rate = await store.checkRateLimit(auth.credential);
      if (!rate.allowed) throw new Error('rate limited');
      const credential = auth.credential;
      const bodyText = JSON.stringify(op.body ?? {});
      const idempotency = op.idempotent ? { key: randomUUID(), fingerprint: requestFingerprint('POST', op.path, bodyText) } : undefined;
      const { answer } = await store.execute(
        { credential, operationId: op.operationId, idempotency, isStorable: (a: Answer) => a.status < 500 },
        (ops) => op.run(ops, credential),
        (outcome) => encode(outcome, op.status ?? 200),
      );
      if (answer.status >= 300) throw new Error(`${op.operationId}: ${answer.status} ${answer.body}`);
      return answer;
    },
  };
}
