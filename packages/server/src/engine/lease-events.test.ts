import { describe, expect, it } from 'vitest';
import type { Credential } from './credentials.js';
import { LeaseEventLog, MAX_EVENTS_PER_ACCOUNT, decodeEventCursor, eventId } from './lease-events.js';
import { LeaseRecord, TOMBSTONE_MS } from './lease-record.js';

const SPACE = '6f1c2b9e-8d4a-4c1e-9b7a-3e2f1d0c9b8a';
const admin: Credential = { credentialId: 'c', accountId: 'a', spaces: '*', permissions: new Set(['coordination_read']), rateLimitPerSecond: null };
const lease = (n: number, accountId = 'a') =>
  new LeaseRecord({ kind: 'space', credentialId: 'c', accountId, holderSession: 's', owner: {}, spaceId: SPACE, key: `k${n}`, holder: `w${n}` }, `clm_${n}`, 't', n);

describe('the lease event log', () => {
  it('keeps 10 minutes and at most MAX_EVENTS_PER_ACCOUNT per account, oldest dropped first, and pages after a cursor', () => {
    const log = new LeaseEventLog();
    for (let i = 1; i <= MAX_EVENTS_PER_ACCOUNT + 5; i++) log.record(lease(i), 'granted', 1000, 1000);
    log.record(lease(0, 'b'), 'granted', 1000, 1000);
    const first = log.list(admin, 0, 3, 1000);
    expect(first.data.map((e) => e.key)).toEqual(['k6', 'k7', 'k8']);
    expect(first).toMatchObject({ hasMore: true, nextCursor: eventId(8) });
    expect(log.list(admin, decodeEventCursor(first.nextCursor), 2, 1000).data.map((e) => e.key)).toEqual(['k9', 'k10']);
    expect([...log.eventsOf('a', 1000)]).toHaveLength(MAX_EVENTS_PER_ACCOUNT);
    expect(log.list(admin, 0, 100, 1000 + TOMBSTONE_MS)).toEqual({ object: 'list', data: [], nextCursor: eventId(0), hasMore: false });
    expect([...log.eventsOf('b', 1000)].map((e) => e.holder)).toEqual(['w0']);
  });

  it('refuses a cursor it did not hand out', () => {
    expect(() => decodeEventCursor('evt_x')).toThrow(/cursor/);
    expect(decodeEventCursor(undefined)).toBe(0);
  });
});
