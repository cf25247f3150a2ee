import type { CredentialUpdate, KeyStore } from './credentials.js';
import type { LeaseEngine } from './lease-engine.js';
import type { SpaceClaims } from './space-claims.js';
import type { Spools } from './spools.js';
import { requireIdentName, requireUuid } from './validation.js';

/** What the controls act on. */
export interface ControlTargets {
  leases: LeaseEngine;
  keys: KeyStore;
  claims: SpaceClaims;
  spools: Spools;
}

/**
 * The reference server's test levers (`server.control`, and `/_control` behind a flag): each
 * answers how many leases, messages or keys it touched, like the wire `ControlResult.affected`.
 */
export class EngineControls {
  readonly #t: ControlTargets;

  /** Controls over the engine's parts. */
  constructor(targets: ControlTargets) {
    this.#t = targets;
  }

  /** Cancel a run in a space of one account, or of every account when `accountId` is absent. */
  cancelScope(params: { spaceId: string; scopeId: string; accountId?: string | undefined }): number {
    const now = this.#t.leases.sync();
    const spaceId = requireUuid(params.spaceId, 'spaceId');
    const scopeId = requireUuid(params.scopeId, 'scopeId');
    const accounts = params.accountId === undefined ? this.#t.keys.accounts() : [params.accountId];
    let lost = 0;
    for (const accountId of accounts) {
      const space = this.#t.claims.spaceOf(accountId, spaceId, true);
      if (space !== undefined) lost += this.#t.claims.cancelIn(space, scopeId, now);
    }
    return lost;
  }

  /** Discard a message by handle (in one account's spool, or any account's spool of that name). */
  discardMessage(params: { spool: string; handle: string; accountId?: string | undefined }): number {
    const now = this.#t.leases.sync();
    const name = requireIdentName(params.spool, 'spool');
    let discarded = 0;
    for (const spool of this.#t.spools.spoolsNamed(name, params.accountId)) {
      if (this.#t.spools.discardIn(spool, params.handle, now) !== undefined) discarded++;
    }
    return discarded;
  }

  /** Simulate a primary change: every outstanding spool lease becomes stale. */
  primaryChange(): number {
    return this.#t.spools.primaryChange();
  }

  /** Take one live lease away now (it is reported `lost` by the next heartbeat). */
  loseLease(claimId: string): number {
    const now = this.#t.leases.sync();
    const lease = this.#t.leases.byClaimId(claimId);
    if (lease === undefined || !lease.live) return 0;
    this.#t.leases.lose(lease, now, 'revoked');
    return 1;
  }

  /** Suspend (or reinstate) an account. */
  suspendAccount(accountId: string, suspended = true): number {
    this.#t.keys.suspendAccount(accountId, suspended);
    return 1;
  }

  /** Block (or unblock) a key. */
  blockKey(apiKey: string, blocked = true): number {
    this.#t.keys.update(apiKey, { blocked });
    return 1;
  }

  /** Set a key's rate limit in requests per second (`null`: unlimited). */
  setRateLimit(apiKey: string, rateLimitPerSecond: number | null): number {
    this.#t.keys.update(apiKey, { rateLimitPerSecond });
    return 1;
  }

  /** Mark a key expired (or valid again). */
  setKeyExpired(apiKey: string, expired = true): number {
    this.#t.keys.update(apiKey, { expired });
    return 1;
  }

  /** Apply a wire `UpdateCredentialRequest` (blocked, expired, rateLimitPerSecond). */
  updateCredential(apiKey: string, changes: CredentialUpdate): number {
    this.#t.keys.update(apiKey, changes);
    return 1;
  }
}
