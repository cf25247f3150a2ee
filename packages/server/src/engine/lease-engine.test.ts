import { describe, expect, it } from 'vitest';
import { ManualClock } from './clock.js';
import type { HeartbeatResult } from './heartbeat-result.js';
import { LeaseEngine, type LeaseKindHandler } from './lease-engine.js';
import { TOMBSTONE_MS, type LeaseRecord } from './lease-record.js';
import { seededRandom } from './random.js';

class CountingHandler implements LeaseKindHandler {
  detached: Array<[string, number]> = [];
  purged: string[] = [];
  detach(lease: LeaseRecord, at: number): void {
    this.detached.push([lease.claimId, at]);
  }
  heartbeat(lease: LeaseRecord): HeartbeatResult {
    return { claimId: lease.claimId, status: 'held' };
  }
  purge(lease: LeaseRecord): void {
    this.purged.push(lease.claimId);
  }
}

function engine() {
  const clock = new ManualClock(0);
  const leases = new LeaseEngine(clock, seededRandom(9));
  const handler = new CountingHandler();
  leases.register('space', handler);
  const held = (expiresAt: number | null, credentialId = 'c1') => {
    const lease = leases.create({ kind: 'space', token: 'lht_', credentialId, accountId: 'a', holderSession: null, owner: {} });
    leases.grant(lease, clock.now(), expiresAt);
    return lease;
  };
  return { clock, leases, handler, held };
}

describe('LeaseEngine', () => {
  it('grants strictly increasing fences', () => {
    const { held } = engine();
    const fences = [held(10), held(20), held(null)].map((l) => l.fence);
    expect(fences).toEqual([1, 2, 3]);
  });

  it('draws fences from one sequence per account: grants in one account never move another', () => {
    const { clock, leases } = engine();
    const grant = (accountId: string) => {
      const lease = leases.create({ kind: 'space', token: 'lht_', credentialId: `c-${accountId}`, accountId, holderSession: null, owner: {} });
      leases.grant(lease, clock.now(), null);
      return lease.fence;
    };
    expect([grant('a'), grant('a'), grant('b'), grant('a'), grant('b')]).toEqual([1, 2, 1, 3, 2]);
    expect(leases.stats().fence).toBe(3);
  });

  it('expires in due order at each lease’s own expiry instant', () => {
    const { clock, leases, handler, held } = engine();
    const late = held(3000);
    const early = held(1000);
    held(10_000);
    clock.set(5000);
    expect(leases.processExpirations()).toBe(2);
    expect(handler.detached).toEqual([
      [early.claimId, 1000],
      [late.claimId, 3000],
    ]);
    expect([early.status, early.lostReason, early.endedAt]).toEqual(['lost', 'expired', 1000]);
  });

  it('extends without heap work and re-examines lazily', () => {
    const { clock, leases, handler, held } = engine();
    const leasesHeld = Array.from({ length: 50 }, () => held(1000));
    for (let round = 1; round <= 20; round++) for (const lease of leasesHeld) leases.setExpiry(lease, 1000 + round * 100);
    expect(leases.stats().heapSize).toBe(50);
    clock.set(2999);
    expect(leases.processExpirations()).toBe(0);
    clock.set(3000);
    expect(leases.processExpirations()).toBe(50);
    expect(handler.detached).toHaveLength(50);
  });

  it('moves an expiry earlier at once', () => {
    const { clock, leases, held } = engine();
    const lease = held(10_000);
    leases.setExpiry(lease, 500);
    clock.set(500);
    expect(leases.processExpirations()).toBe(1);
  });

  it('never expires a lease without expiry and drops its heap entry', () => {
    const { clock, leases, held } = engine();
    const lease = held(100);
    leases.setExpiry(lease, null);
    clock.set(1_000_000);
    expect(leases.processExpirations()).toBe(0);
    expect(leases.stats()).toMatchObject({ held: 1, heapSize: 0 });
    leases.setExpiry(lease, 2_000_000);
    expect(leases.stats().heapSize).toBe(1);
  });

  it('keeps tombstones for 10 minutes, then purges them', () => {
    const { clock, leases, handler, held } = engine();
    const lost = held(100);
    const released = held(null);
    leases.release(released, 0, { releasedAt: 0, observation: null });
    clock.set(100);
    leases.processExpirations();
    expect(leases.stats()).toMatchObject({ held: 0, tombstones: 2 });
    expect(leases.byClaimId(lost.claimId)).toBe(lost);
    clock.set(100 + TOMBSTONE_MS);
    leases.processExpirations();
    expect(leases.stats()).toMatchObject({ tombstones: 0, heapSize: 0 });
    expect(leases.byClaimId(lost.claimId)).toBeUndefined();
    expect(handler.purged.sort()).toEqual([lost.claimId, released.claimId].sort());
  });

  it('finds leases by token only with the exact secret', () => {
    const { leases, held } = engine();
    const lease = held(100);
    expect(leases.byToken('lht_', lease.token)).toBe(lease);
    expect(leases.byToken('lht_', `${lease.token.slice(0, -1)}A`)).toBeUndefined();
    expect(leases.byToken('sl_', lease.token)).toBeUndefined();
    expect(leases.byToken('lht_', 'lht_')).toBeUndefined();
  });

  it('indexes leases per credential; releases leave the index, losses stay until reported', () => {
    const { clock, leases, held } = engine();
    const a = held(100, 'c1');
    const b = held(null, 'c1');
    held(null, 'c2');
    expect(leases.leasesOf('c1')?.size).toBe(2);
    leases.release(b, 0, null);
    clock.set(100);
    leases.processExpirations();
    expect([...(leases.leasesOf('c1') ?? [])]).toEqual([a]);
    leases.markReported(a);
    expect(leases.leasesOf('c1')).toBeUndefined();
  });
});
