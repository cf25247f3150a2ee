import type { StoredAnswer } from './answer.js';
import type { RequestContext } from './context.js';

/**
 * Sees every answer of the pipeline once it is stamped (metrics, request logs). Called only
 * when one is configured, so a server without metrics or logs pays nothing per request.
 */
export interface RequestObserver {
  /**
   * One answered request: its context (route, credential), the answer (`status` 0: dropped by
   * an injected fault), and how long it took (ms, `performance.now()` based).
   */
  answered(ctx: RequestContext, answer: StoredAnswer, durationMs: number): void;
}

/** Several observers as one (`undefined` when there are none). */
export function observeAll(observers: readonly (RequestObserver | undefined)[]): RequestObserver | undefined {
  const present = observers.filter((o): o is RequestObserver => o !== undefined);
  if (present.length === 0) return undefined;
  if (present.length === 1) return present[0];
  return {
    answered(ctx, answer, durationMs) {
      for (const observer of present) observer.answered(ctx, answer, durationMs);
    },
  };
}
