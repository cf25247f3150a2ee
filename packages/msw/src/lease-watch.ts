import { leaseGrants, type LeaseKind } from '@leasehold/protocol';
import { operationAt, type LeaseholdServer } from '@leasehold/server/portable';

/** The kinds of lease the API grants (owned by `@leasehold/protocol`). */
export type { LeaseKind } from '@leasehold/protocol';

/** One answer as an adapter saw it, with the path relative to the base URL. */
export interface ObservedAnswer {
  method: string;
  /** Path under the base URL, query included (`/v1/spaces/…/claims`). */
  path: string;
  status: number;
  /** True for an idempotent replay (`Idempotent-Replayed: true`), which grants nothing new. */
  replayed: boolean;
  /** Reads the answer's body; called only when a watcher waits for a grant. */
  readBody: () => Promise<string | undefined>;
}

interface Waiter {
  kinds: ReadonlySet<LeaseKind> | undefined;
  resolve: (claimId: string) => void;
}

/**
 * The kind of lease an answer granted, if it is a fresh grant (not a replay, not queued): the
 * server's router names the operation, `leaseGrants` says what it grants.
 */
export function grantKindOf(answer: Pick<ObservedAnswer, 'method' | 'path' | 'status' | 'replayed'>): LeaseKind | undefined {
  if (answer.replayed) return undefined;
  const operationId = operationAt(answer.method, answer.path);
  const grant = operationId === undefined ? undefined : leaseGrants[operationId];
  return grant !== undefined && grant.status === answer.status ? grant.kind : undefined;
}

/**
 * Takes away the next leases granted through the mock's adapters: each waiter loses the first
 * fresh grant of a kind it asked for, the moment the grant is answered, so the holder's next
 * heartbeat reports the lease `lost`.
 */
export class LeaseWatch {
  private waiters: Waiter[] = [];

  constructor(private readonly server: LeaseholdServer) {}

  /** How many waiters are still waiting for a grant. */
  get pending(): number {
    return this.waiters.length;
  }

  /** Waits for the next grant of one of `kinds` (any kind when absent); resolves with its `claimId`. */
  loseNext(kinds?: readonly LeaseKind[]): Promise<string> {
    return new Promise((resolve) => {
      this.waiters.push({ kinds: kinds === undefined ? undefined : new Set(kinds), resolve });
    });
  }

  /** Forgets every waiter (their promises never settle); returns how many there were. */
  clear(): number {
    const count = this.waiters.length;
    this.waiters = [];
    return count;
  }

  /** Adapters call this with every answer before handing it to the caller. */
  async observe(answer: ObservedAnswer): Promise<void> {
    if (this.waiters.length === 0) return;
    const kind = grantKindOf(answer);
    if (kind === undefined) return;
    const index = this.waiters.findIndex((w) => w.kinds === undefined || w.kinds.has(kind));
    if (index === -1) return;
    const claimId = claimIdOf(await answer.readBody());
    if (claimId === undefined) return;
    const [waiter] = this.waiters.splice(index, 1);
    this.server.control.loseLease(claimId);
    waiter?.resolve(claimId);
  }
}

function claimIdOf(body: string | undefined): string | undefined {
  if (body === undefined) return undefined;
  try {
    const parsed = JSON.parse(body) as { claimId?: unknown };
    return typeof parsed.claimId === 'string' ? parsed.claimId : undefined;
  } catch {
    return undefined;
  }
}

const watches = new WeakMap<LeaseholdServer, LeaseWatch>();

/** The lease watch of one server, shared by every adapter over that server. */
export function leaseWatchOf(server: LeaseholdServer): LeaseWatch {
  let watch = watches.get(server);
  if (!watch) {
    watch = new LeaseWatch(server);
    watches.set(server, watch);
  }
  return watch;
}
