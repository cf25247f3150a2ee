import type { HeapItem } from './min-heap.js';

/** What a lease guards: a key of a space, a task, or a spool message. */
export type LeaseKind = 'space' | 'task' | 'spool';

/** A lease's state as the wire shows it. */
export type LeaseStatus = 'held' | 'queued' | 'lost';

/** A lease's internal state: the wire states plus `released` (a tombstone kept for repeats). */
export type LeaseState = LeaseStatus | 'released';

/** Why a lease was lost. */
export type LostReason = 'expired' | 'lapsed' | 'scope_cancelled' | 'discarded' | 'primary_change' | 'revoked';

/** A heartbeat progress report: any JSON object. */
export type Details = Record<string, unknown>;

/** How long a lost or released lease is remembered (10 minutes). */
export const TOMBSTONE_MS = 10 * 60 * 1000;

/** What a released space claim left behind: when, and the holder's observation. */
export interface ReleasedRow {
  /** When the release happened (epoch ms). */
  readonly releasedAt: number;
  /** The JSON value the releaser left, or `null`. */
  readonly observation: unknown;
}

/** The fields a new lease starts with; the engine fills in ids, token, fence and slots. */
export interface LeaseInit {
  /** What the lease guards. */
  kind: LeaseKind;
  /** The credential that acquired it (heartbeats are per credential). */
  credentialId: string;
  /** The account the guarded resource belongs to. */
  accountId: string;
  /** The acquiring process's session, or `null`. */
  holderSession: string | null;
  /** The resource record the lease guards (key state, task or message). */
  owner: object;
  /** The space (space claims only). */
  spaceId?: string | null;
  /** The key (space claims only). */
  key?: string | null;
  /** The run (space claims only). */
  scopeId?: string | null;
  /** The holder's display name (space claims only). */
  holder?: string | null;
  /** The granted or requested lease duration in seconds, or `null` for never-expiring leases. */
  leaseSeconds?: number | null;
}

/**
 * One lease of any kind. A plain record with a fixed shape (no closures, no per-lease maps),
 * so a million of them stay lean; kind-specific fields are `null` where they do not apply.
 */
export class LeaseRecord implements HeapItem {
  /** What the lease guards. */
  readonly kind: LeaseKind;
  /** Opaque, stable id (`clm_` + base62). */
  readonly claimId: string;
  /** The secret token; compare only with `safeEqual`. */
  readonly token: string;
  /** The fence of the grant; `null` while queued. */
  fence: number | null = null;
  /** The credential that acquired the lease. */
  readonly credentialId: string;
  /** The account the guarded resource belongs to. */
  readonly accountId: string;
  /** The acquiring process's session, or `null`. */
  readonly holderSession: string | null;
  /** Current state. */
  status: LeaseState = 'queued';
  /** When the lease (or a waiter's place) lapses, epoch ms; `null` = never. */
  expiresAt: number | null = null;
  /** The latest heartbeat `details`, or `null`. */
  details: Details | null = null;
  /** Heap key: when the engine must next look at this lease (≤ `expiresAt` while live). */
  dueAt = 0;
  /** Creation order; breaks heap ties and orders a key's waiters. */
  readonly seq: number;
  /** Slot in the expiry heap, -1 when absent. */
  heapIndex = -1;
  /** Why the lease was lost, once it is. */
  lostReason: LostReason | null = null;
  /** When the lease was lost or released (epoch ms). */
  endedAt: number | null = null;
  /** The release row (space claims), kept so a repeated release answers the same. */
  released: ReleasedRow | null = null;
  /** The resource record this lease guards. */
  readonly owner: object;
  /** Space claims: the space id. */
  readonly spaceId: string | null;
  /** Space claims: the key. */
  readonly key: string | null;
  /** Space claims: the run. */
  readonly scopeId: string | null;
  /** Space claims: the holder's display name. */
  readonly holder: string | null;
  /** Granted duration in seconds (`null`: never expires). */
  leaseSeconds: number | null;
  /** When the lease was granted (epoch ms); `null` while queued. */
  acquiredAt: number | null = null;

  /** Build a record; the lease engine supplies the id, token and sequence number. */
  constructor(init: LeaseInit, claimId: string, token: string, seq: number) {
    this.kind = init.kind;
    this.claimId = claimId;
    this.token = token;
    this.credentialId = init.credentialId;
    this.accountId = init.accountId;
    this.holderSession = init.holderSession;
    this.seq = seq;
    this.owner = init.owner;
    this.spaceId = init.spaceId ?? null;
    this.key = init.key ?? null;
    this.scopeId = init.scopeId ?? null;
    this.holder = init.holder ?? null;
    this.leaseSeconds = init.leaseSeconds ?? null;
  }

  /** True while the lease is held or queued. */
  get live(): boolean {
    return this.status === 'held' || this.status === 'queued';
  }
}
