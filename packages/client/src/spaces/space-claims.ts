import { pickCallOptions, type CallOptions } from '../resources/call-options.js';
import type { Claim } from '../resources/wire-types.js';
import { assertAddressableKey } from './claim-handle.js';
import { ClaimListPromise } from './claim-list.js';
import type { ListClaimsOptions, SpaceContext } from './space-types.js';

/** Read access to the claims of a space: `list()` (paginated) and `get(key)`. */
export class SpaceClaims {
  /** The space. */
  readonly spaceId: string;
  readonly #ctx: Pick<SpaceContext, 'api'>;

  /** @internal */
  constructor(ctx: Pick<SpaceContext, 'api'>, spaceId: string) {
    this.#ctx = ctx;
    this.spaceId = spaceId;
  }

  /**
   * The held claims in key order (optionally only keys starting with `prefix`), `limit` per page:
   * `await` it for the first page, or `for await` over it for every claim of every page.
   * @example
   * for await (const claim of space.claims.list({ prefix: 'reports/', limit: 100 })) console.log(claim.key, claim.holder);
   */
  list(options: ListClaimsOptions = {}): ClaimListPromise {
    const { prefix, limit, cursor } = options;
    const call = pickCallOptions(options);
    const fetch = async (next: string | undefined) =>
      (await this.#ctx.api.call('listSpaceClaims', { path: { spaceId: this.spaceId }, query: { prefix, limit, cursor: next } }, call)).data;
    return new ClaimListPromise(fetch, cursor);
  }

  /** The current holder's row of `key` (no token); rejects with `NotFoundError` (`claim_not_found`) when the key is free. */
  async get(key: string, options: CallOptions = {}): Promise<Claim> {
    assertAddressableKey(key);
    return (await this.#ctx.api.call('getSpaceClaim', { path: { spaceId: this.spaceId, key } }, pickCallOptions(options))).data;
  }
}
