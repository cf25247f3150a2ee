import { checkUuid } from '../internal/argument-checks.js';
import type { CallOptions } from '../resources/call-options.js';
import type { ScopeCancellation } from '../resources/wire-types.js';
import { cancelRun, Run } from './run.js';
import { SpaceClaims } from './space-claims.js';
import type { RunOptions, SpaceContext } from './space-types.js';

/**
 * A space: a namespace of keys that runs claim. Any UUID the API key may see names one.
 * @example
 * const space = lh.space('6f1c2b9e-8d4a-4c1e-9b7a-3e2f1d0c9b8a');
 * const lease = await space.run(runId, { holder: 'worker-1' }).claim('reports/2026-11').tryAcquire();
 */
export class Space {
  /** The space's id. */
  readonly spaceId: string;
  /** The space's claims: `list()` and `get(key)`. */
  readonly claims: SpaceClaims;
  readonly #ctx: SpaceContext;

  /** @internal */
  constructor(ctx: SpaceContext, spaceId: string) {
    checkUuid(spaceId, 'spaceId', 'lh.space');
    this.#ctx = ctx;
    this.spaceId = spaceId;
    this.claims = new SpaceClaims(ctx, spaceId);
  }

  /** A run of this space, claiming as `holder` (the run id is a UUID, the API's `scopeId`). */
  run(runId: string, options: RunOptions): Run {
    return new Run(this.#ctx, this.spaceId, runId, options);
  }

  /**
   * Cancels a run: its claims are taken away (held keys pass to waiters of other runs). This
   * client's leases of the run abort at once with reason `cancelled`, and each sends one
   * best-effort release with its token (the server's safe cleanup).
   */
  cancelRun(runId: string, options: CallOptions = {}): Promise<ScopeCancellation> {
    try {
      checkUuid(runId, 'runId', 'space.cancelRun');
    } catch (error) {
      return Promise.reject(error);
    }
    return cancelRun(this.#ctx, this.spaceId, runId, options);
  }
}
