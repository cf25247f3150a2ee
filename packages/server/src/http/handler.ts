import type { Credential, Engine } from '../engine/index.js';
import type { ValidatedInput } from './validation.js';

/** What a handler gets: the engine, the authenticated caller and the validated inputs. */
export interface HandlerContext {
  engine: Engine;
  /** The caller; `undefined` only for the test controls, which take no key. */
  credential: Credential | undefined;
  input: ValidatedInput;
  /** The `Leasehold-Session` request header, when sent. */
  session: string | undefined;
}

/** What a handler answers; the pipeline adds `Request-Id`, `Date` and the JSON encoding. */
export interface HandlerResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** One operation's implementation, synchronous because the engine is. */
export type Handler = (context: HandlerContext) => HandlerResult;

/** The credential of a context, for handlers of authenticated operations. */
export function callerOf(context: HandlerContext): Credential {
  if (!context.credential) throw new Error('handler of an authenticated operation ran without a credential');
  return context.credential;
}
