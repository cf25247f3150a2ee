import type { components } from '@leasehold/protocol';
import type { Logger } from '../core/logger.js';
import type { GrantFlights } from '../leases/grant-flights.js';
import type { LeaseEndings } from '../leases/lease-backend.js';
import type { LeaseBook } from '../leases/lease-tracker.js';
import type { Api } from '../resources/api.js';
import type { CallOptions } from '../resources/call-options.js';

/** Who claims in a run: `holder` is shown in reads; `holderSession` defaults to the client's session. */
export interface RunOptions {
  /** A name for the claimant (1–200 characters), shown in claim rows. */
  holder: string;
  /**
   * The session recorded on this run's claims. Default: the client's `session`. Another value
   * gets its own batch heartbeat (one request per cadence for that session's leases).
   */
  holderSession?: string | undefined;
}

/** Options of `run.claim(key)`. */
export interface ClaimOptions {
  /** The lease asked at acquire (and by an explicit `renew()`), 5–600 s. Default: the client's `heartbeatTtlSeconds`. */
  leaseSeconds?: number | undefined;
}

/** Options of `claim.acquire()`, `tryAcquire()` and `run()`: a `signal`, and idempotency options for the acquire. */
export type AcquireOptions = CallOptions;

/** Query of a claim list page (`listSpaceClaims`'s parameters). */
export interface ListClaimsQuery {
  /** Only keys starting with this. */
  prefix?: components['parameters']['Prefix'] | undefined;
  /** Page size, 1–100 (server default 50). */
  limit?: components['parameters']['Limit'] | undefined;
  /** The previous page's `nextCursor`. */
  cursor?: components['parameters']['Cursor'] | undefined;
}

/** Options of `claims.list()`: the query (`prefix`, `limit`, a starting `cursor`) plus call options. */
export type ListClaimsOptions = ListClaimsQuery & CallOptions;

/** Where a space claim lives and who asked for it. */
export interface SpaceClaimAddress {
  spaceId: string;
  key: string;
  /** The run (`scopeId`) the claim belongs to. */
  runId: string;
  holder: string;
  /** The session the claim was acquired with (its scheduler heartbeats that session). */
  holderSession: string;
  /** The lease length asked at acquire and on an explicit `renew()`, in seconds. */
  leaseSeconds: number;
}

/** What the space classes need from the client: the API, lease tracking, grant flights, closing and the log. */
export interface SpaceContext {
  readonly api: Api;
  readonly leases: LeaseBook;
  readonly grants: GrantFlights;
  readonly endings: LeaseEndings;
  /** Aborted when the client starts closing. */
  readonly closeSignal: AbortSignal;
  readonly log: Logger;
  /** The client's heartbeat `ttl`, the default `leaseSeconds` of a claim. */
  readonly ttlSeconds: number;
}
