import type { Clock } from './clock.js';
import { EngineError, type ErrorCode } from './errors.js';
import { hexOf } from './bytes.js';
import { bytesEqual, sha256 } from './secrets.js';

/** A permission a key may carry. */
export type Permission =
  | 'coordination_read'
  | 'coordination_write'
  | 'tasks:read'
  | 'tasks:update'
  | 'tasks:admin'
  | 'spools:read'
  | 'spools:write';

/** Every permission, in a stable order. */
export const ALL_PERMISSIONS: readonly Permission[] = [
  'coordination_read',
  'coordination_write',
  'tasks:read',
  'tasks:update',
  'tasks:admin',
  'spools:read',
  'spools:write',
];

/** The read-only permissions. */
export const READ_PERMISSIONS: readonly Permission[] = ['coordination_read', 'tasks:read', 'spools:read'];

/** Which spaces a key may see: all (`'*'`) or a set of lowercase UUIDs. */
export type SpaceAccess = '*' | ReadonlySet<string>;

/** The caller of an engine operation: a credential of an account. */
export interface Caller {
  /** The credential (one API key). */
  readonly credentialId: string;
  /** The account whose spaces, tasks and spools the credential sees. */
  readonly accountId: string;
  /** The spaces the credential may see. */
  readonly spaces: SpaceAccess;
}

/** An authenticated credential. */
export interface Credential extends Caller {
  /** What the key may do. */
  readonly permissions: ReadonlySet<Permission>;
  /** Requests per second (a token bucket with a one-second burst), or `null` for no limit. */
  readonly rateLimitPerSecond: number | null;
}

/** One API key of the reference server's configuration. */
export interface KeyConfig {
  /** The secret key, as sent in `Authorization: Bearer <key>`. */
  apiKey: string;
  /** Stable id of the credential (defaults to `cred_` + the key's hash prefix). */
  credentialId?: string;
  /** The account the key belongs to. */
  accountId: string;
  /** Default: every permission. */
  permissions?: readonly Permission[];
  /** Default: every space. */
  spaces?: '*' | readonly string[];
  /** A blocked key is refused with 403 and no code. */
  blocked?: boolean;
  /** An expired key is refused with 401 `expired_api_key`. */
  expired?: boolean;
  /** The key expires at this epoch ms (`null`/absent: never). */
  expiresAt?: number | null;
  /** Requests per second, or `null`/absent for no limit. */
  rateLimitPerSecond?: number | null;
}

/** The reference server's demo keys: two keys of `acct_demo`, one of `acct_other`. */
export const DEFAULT_KEYS: readonly KeyConfig[] = [
  { apiKey: 'lh_test_admin', credentialId: 'cred_test_admin', accountId: 'acct_demo' },
  { apiKey: 'lh_test_reader', credentialId: 'cred_test_reader', accountId: 'acct_demo', permissions: READ_PERMISSIONS },
  { apiKey: 'lh_test_other', credentialId: 'cred_test_other', accountId: 'acct_other' },
];

/** The answer of `authenticate`: the credential, or why it is refused (`code: null` = blocked key). */
export type AuthResult =
  | { readonly ok: true; readonly credential: Credential }
  | { readonly ok: false; readonly status: 401 | 402 | 403; readonly code: ErrorCode | null; readonly message: string };

/** Changes to a key's standing (the `/_control` credential update). */
export interface CredentialUpdate {
  /** Block or unblock the key. */
  blocked?: boolean;
  /** Mark the key expired or valid again. */
  expired?: boolean;
  /** New rate limit, or `null` for none. */
  rateLimitPerSecond?: number | null;
}

interface KeyEntry extends Credential {
  readonly hash: Uint8Array;
  blocked: boolean;
  expired: boolean;
  expiresAt: number | null;
  rateLimitPerSecond: number | null;
  /** The answer while the key is in good standing (a frozen snapshot); `null` after a change. */
  granted: AuthResult | null;
}

const BEARER = /^Bearer +([\x21-\x7e]+) *$/i;

/** How many distinct `Authorization` values the lookup cache remembers (oldest dropped first). */
const MAX_CACHED_HEADERS = 256;

/**
 * The key store: API keys (kept only as SHA-256 digests), their accounts, permissions and
 * standing. Matching hashes the presented key, finds the entry by digest and confirms it with
 * a constant-time comparison.
 *
 * A header value that matched once is remembered (exact string → key entry) in a bounded map,
 * so a client repeating its header costs no hashing. Only values that matched a key enter it, so
 * a wrong key never does; looking one up compares string contents only after its V8 string hash
 * and its length both equal those of a remembered value (timing can tell at most about that
 * hash, never about the key's characters), and a miss falls through to the digest match above.
 * The map holds raw header values, as the key configuration itself holds the raw keys. It holds
 * entries, not answers: standing (blocked, expired, suspended) is read on every request, and the
 * map is cleared whenever a key is added or updated.
 */
export class KeyStore {
  readonly #clock: Clock;
  readonly #byHash = new Map<string, KeyEntry>();
  readonly #suspended = new Map<string, boolean>();
  readonly #byHeader = new Map<string, KeyEntry>();

  /** Build the store from `keys` (default: the demo keys). */
  constructor(clock: Clock, keys: readonly KeyConfig[] = DEFAULT_KEYS) {
    this.#clock = clock;
    for (const key of keys) this.add(key);
  }

  /** Add (or replace) one key. */
  add(config: KeyConfig): Credential {
    const hash = sha256(config.apiKey);
    const hex = hexOf(hash);
    const entry: KeyEntry = {
      hash,
      credentialId: config.credentialId ?? `cred_${hex.slice(0, 16)}`,
      accountId: config.accountId,
      permissions: new Set(config.permissions ?? ALL_PERMISSIONS),
      spaces: config.spaces === undefined || config.spaces === '*' ? '*' : new Set(config.spaces.map((s) => s.toLowerCase())),
      blocked: config.blocked ?? false,
      expired: config.expired ?? false,
      expiresAt: config.expiresAt ?? null,
      rateLimitPerSecond: config.rateLimitPerSecond ?? null,
      granted: null,
    };
    this.#byHash.set(hex, entry);
    this.#byHeader.clear();
    if (!this.#suspended.has(entry.accountId)) this.#suspended.set(entry.accountId, false);
    return snapshot(entry);
  }

  /** Authenticate a raw `Authorization` header value. */
  authenticate(header: string | null | undefined): AuthResult {
    if (header === undefined || header === null) {
      return refuse(401, 'missing_api_key', 'No API key: send Authorization: Bearer <api key>.');
    }
    const known = this.#byHeader.get(header);
    if (known !== undefined) return this.#standing(known);
    const apiKey = apiKeyOf(header);
    if (typeof apiKey !== 'string') return apiKey;
    const entry = this.#find(apiKey);
    if (entry === undefined) return unknownKey();
    if (this.#byHeader.size >= MAX_CACHED_HEADERS) this.#byHeader.delete(this.#byHeader.keys().next().value as string);
    this.#byHeader.set(header, entry);
    return this.#standing(entry);
  }

  /** The answer for a key that matched: refused for its standing, else its (cached) credential. */
  #standing(entry: KeyEntry): AuthResult {
    const refused = standingRefusal(entry, this.#suspended.get(entry.accountId) === true, this.#clock.now());
    if (refused !== undefined) return refused;
    return (entry.granted ??= Object.freeze({ ok: true, credential: snapshot(entry) }));
  }

  /** Change a key's standing; unknown keys are `invalid_request` (param `apiKey`). */
  update(apiKey: string, changes: CredentialUpdate): Credential {
    const entry = this.#find(apiKey);
    if (entry === undefined) throw new EngineError('invalid_request', 'No such API key.', 'apiKey');
    if (changes.blocked !== undefined) entry.blocked = changes.blocked;
    if (changes.expired !== undefined) entry.expired = changes.expired;
    if (changes.rateLimitPerSecond !== undefined) entry.rateLimitPerSecond = changes.rateLimitPerSecond;
    entry.granted = null;
    this.#byHeader.clear();
    return snapshot(entry);
  }

  /** Suspend (or reinstate) an account; every key of it answers 402 while suspended. */
  suspendAccount(accountId: string, suspended = true): void {
    this.#suspended.set(accountId, suspended);
  }

  /** Whether the account is suspended. */
  isSuspended(accountId: string): boolean {
    return this.#suspended.get(accountId) === true;
  }

  /** Every account that has a key. */
  accounts(): string[] {
    return [...this.#suspended.keys()];
  }

  #find(apiKey: string): KeyEntry | undefined {
    const hash = sha256(apiKey);
    const entry = this.#byHash.get(hexOf(hash));
    return entry !== undefined && bytesEqual(entry.hash, hash) ? entry : undefined;
  }
}

function snapshot(entry: KeyEntry): Credential {
  return Object.freeze({
    credentialId: entry.credentialId,
    accountId: entry.accountId,
    permissions: entry.permissions,
    spaces: entry.spaces,
    rateLimitPerSecond: entry.rateLimitPerSecond,
  });
}

/** A refused authentication (`code: null`: a blocked key). */
export type AuthRefusal = Extract<AuthResult, { ok: false }>;

/** The API key an `Authorization` header carries, or the 401 for a missing or malformed header. */
export function apiKeyOf(header: string | null | undefined): string | AuthRefusal {
  if (header === undefined || header === null || header.trim() === '') {
    return refuse(401, 'missing_api_key', 'No API key: send Authorization: Bearer <api key>.');
  }
  const match = BEARER.exec(header.trim());
  if (!match) return refuse(401, 'invalid_api_key', 'The Authorization header must be "Bearer <api key>".');
  return match[1] ?? '';
}

/** The 401 for an unknown key. */
export function unknownKey(): AuthRefusal {
  return refuse(401, 'invalid_api_key', 'The API key is not recognized.');
}

/** Why a matched key is refused at `now` (expired 401, blocked 403, suspended 402), or `undefined`. */
export function standingRefusal(
  key: { readonly expired: boolean; readonly expiresAt: number | null; readonly blocked: boolean },
  suspended: boolean,
  now: number,
): AuthRefusal | undefined {
  if (key.expired || (key.expiresAt !== null && now >= key.expiresAt)) {
    return refuse(401, 'expired_api_key', 'The API key has expired.');
  }
  if (key.blocked) return refuse(403, null, 'The API key is blocked.');
  if (suspended) return refuse(402, 'account_suspended', 'The account is suspended.');
  return undefined;
}

function refuse(status: 401 | 402 | 403, code: ErrorCode | null, message: string): AuthRefusal {
  return { ok: false, status, code, message };
}

/** True when the credential carries `permission`. */
export function hasPermission(credential: Credential, permission: Permission): boolean {
  return credential.permissions.has(permission);
}

/** Throw `permission_denied` (403) unless the credential carries `permission`. */
export function requirePermission(credential: Credential, permission: Permission): void {
  if (!hasPermission(credential, permission)) {
    throw new EngineError('permission_denied', `This API key lacks the ${permission} permission.`);
  }
}

/** True when the caller may see the space (a lowercase UUID). */
export function canSeeSpace(caller: Caller, spaceId: string): boolean {
  return caller.spaces === '*' || caller.spaces.has(spaceId);
}
