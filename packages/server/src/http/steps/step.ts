import type { MaybePromise } from '../../store/operations.js';
import type { StoredAnswer } from '../answer.js';
import type { RequestContext } from '../context.js';

/**
 * One step of the pipeline over the request context: answers (which ends the pipeline), or
 * `undefined` to go on, synchronously unless it has to wait. Refusals are thrown (`HttpError`,
 * `EngineError`, store errors) and answered at the edge.
 */
export type Step = (context: RequestContext) => MaybePromise<StoredAnswer | undefined>;
