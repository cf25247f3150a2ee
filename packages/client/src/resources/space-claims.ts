import { encodePath } from '../core/build-url.js';
import { request, type LeaseholdResponse, type RequestConfig } from '../core/request.js';
import type {
  AcquireClaimRequest,
  Claim,
  ClaimList,
  ReleaseClaimRequest,
  ReleasedClaim,
  RenewClaimRequest,
  ScopeCancellation,
} from '../wire-types.js';
import type { CallOptions } from './call-options.js';
import { claimGrant, claimList, claimRow, objectBody } from './answer-shapes.js';

const RELEASED = objectBody('release');
const CANCELLED = objectBody('run cancel');

/** Query of a claim list page. */
export interface ListClaimsQuery {
  /** Only keys starting with this. */
  prefix?: string | undefined;
  /** Page size, 1–100 (server default 50). */
  limit?: number | undefined;
  /** The previous page's `nextCursor`. */
  cursor?: string | undefined;
}

/** The space-claim operations under `/v1/spaces/{spaceId}`, one call each. */
export class SpaceClaimsResource {
  readonly #config: RequestConfig;

  constructor(config: RequestConfig) {
    this.#config = config;
  }

  /** `GET /claims`: one page of held claims in key order. */
  list(spaceId: string, query: ListClaimsQuery = {}, options: CallOptions = {}): Promise<LeaseholdResponse<ClaimList>> {
    return request<ClaimList>(this.#config, { method: 'GET', path: encodePath`/v1/spaces/${spaceId}/claims`, query: { ...query }, ...options, accept: claimList });
  }

  /** `GET /claims/{key}`: the current holder's row (404 `claim_not_found` when the key is free). */
  get(spaceId: string, key: string, options: CallOptions = {}): Promise<LeaseholdResponse<Claim>> {
    return request<Claim>(this.#config, { method: 'GET', path: encodePath`/v1/spaces/${spaceId}/claims/${key}`, ...options, accept: claimRow });
  }

  /** `POST /claims`: 201 held, 202 queued (with `wait`), or 409 `claim_held`. */
  acquire(spaceId: string, body: AcquireClaimRequest, options: CallOptions = {}): Promise<LeaseholdResponse<Claim>> {
    return request<Claim>(this.#config, { method: 'POST', path: encodePath`/v1/spaces/${spaceId}/claims`, body, ...options, accept: claimGrant });
  }

  /** `POST /claims/{key}/renew`: extends the holder's lease to now + `leaseSeconds`. */
  renew(spaceId: string, key: string, body: RenewClaimRequest, options: CallOptions = {}): Promise<LeaseholdResponse<Claim>> {
    return request<Claim>(this.#config, { method: 'POST', path: encodePath`/v1/spaces/${spaceId}/claims/${key}/renew`, body, ...options, accept: claimRow });
  }

  /** `POST /claims/{key}/release`: gives the key back (or leaves its queue). */
  release(spaceId: string, key: string, body: ReleaseClaimRequest, options: CallOptions = {}): Promise<LeaseholdResponse<ReleasedClaim>> {
    return request<ReleasedClaim>(this.#config, { method: 'POST', path: encodePath`/v1/spaces/${spaceId}/claims/${key}/release`, body, ...options, accept: RELEASED });
  }

  /** `POST /scopes/{scopeId}/cancel`: cancels a run; its claims are lost. */
  cancelScope(spaceId: string, scopeId: string, options: CallOptions = {}): Promise<LeaseholdResponse<ScopeCancellation>> {
    return request<ScopeCancellation>(this.#config, { method: 'POST', path: encodePath`/v1/spaces/${spaceId}/scopes/${scopeId}/cancel`, ...options, accept: CANCELLED });
  }
}
