import type { LeaseholdServer, Store } from '../../../packages/server/src/index.js';
import { matrixStoreDriver } from '../../support/matrix-server.js';

/** The server's own count of the leases it ended as lost or expired, by `kind/reason`. */
export interface LostLeases {
  /** Leases lost so far, by `kind/reason` (e.g. `space/expired`, `space/lapsed`, `task/expired`). */
  readonly counts: Record<string, number>;
  /**
   * Reads what the store recorded since the last call (nothing to do on the memory store). A SQL
   * store forgets a lease event 10 minutes of server time after recording it: call this before
   * every clock move that may pass that, and before reading `counts`.
   */
  collect(): Promise<void>;
}

/**
 * Server-side truth about lost leases, on every store of the matrix: on the memory store every
 * tombstone the engine writes as lost (`LeaseEngine.markLost`), on a SQL store every
 * `leasehold.lease_events` row of type `expired` or `lost` (written by a trigger on `leases`
 * whatever path ends the lease: a touch, the sweep, a control).
 */
export function lostLeases(server: LeaseholdServer<Store>): LostLeases {
  const counts: Record<string, number> = {};
  const count = (name: string): void => void (counts[name] = (counts[name] ?? 0) + 1);
  const engine = server.engine;
  if (engine !== undefined) {
    const leases = engine.leases;
    const markLost = leases.markLost.bind(leases);
    leases.markLost = (lease, at, reason) => {
      count(`${lease.kind}/${reason}`);
      markLost(lease, at, reason);
    };
    return { counts, collect: async () => {} };
  }
  const driver = matrixStoreDriver(server);
  if (driver === undefined) throw new Error('lostLeases: a SQL store opened by createMatrixServer is needed');
  // Event ids are handed out as rows are inserted, not as transactions commit: remember each id
  // seen rather than reading past the highest.
  const seen = new Set<number>();
  return {
    counts,
    async collect() {
      const { rows } = await driver.query<{ event_id: number; kind: string; reason: string }>(
        "SELECT event_id, kind, reason FROM leasehold.lease_events WHERE type IN ('expired', 'lost')",
      );
      for (const row of rows) {
        if (seen.has(row.event_id)) continue;
        seen.add(row.event_id);
        count(`${row.kind}/${row.reason}`);
      }
    },
  };
}
