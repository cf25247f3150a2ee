import { describe, expect, it } from 'vitest';
import { RUN_A, SPACE, T0, codeOf, setup } from './test-fixtures.js';

type Fixture = ReturnType<typeof setup>;

function acquire(f: Fixture, key: string, extra: { wait?: boolean; leaseSeconds?: number; holderSession?: string } = {}) {
  return f.engine.claims.acquire({
    credential: f.admin,
    spaceId: SPACE,
    key,
    scopeId: RUN_A,
    holder: 'w',
    holderSession: extra.holderSession ?? 'sess-1',
    leaseSeconds: extra.leaseSeconds,
    wait: extra.wait,
  });
}

function spoolWithMessage(f: Fixture, leaseTimeoutSeconds: number | null) {
  f.engine.spools.createSpool({ credential: f.admin, name: 'jobs' });
  f.engine.spools.putQueue({ credential: f.admin, spool: 'jobs', queue: 'q', leaseTimeoutSeconds });
  f.engine.spools.send({ credential: f.admin, spool: 'jobs', queue: 'q', body: { n: 1 } });
  const received = f.engine.spools.receive({ credential: f.admin, spool: 'jobs', queue: 'q', holderSession: 'sess-1' });
  if (received === null) throw new Error('expected a message');
  return received;
}

describe('heartbeat', () => {
  it('renews every kind of lease of the credential by its own rule', () => {
    const f = setup();
    const held = acquire(f, 'k');
    const queued = acquire(f, 'k', { wait: true });
    const { task, etag } = f.engine.tasks.create({ credential: f.admin, title: 't' });
    const taskClaim = f.engine.tasks.claim({ credential: f.admin, taskId: task.id, ifMatch: etag, holderSession: 'sess-1' }).claim;
    const spool = spoolWithMessage(f, 60);
    const forever = (() => {
      f.engine.spools.putQueue({ credential: f.admin, spool: 'jobs', queue: 'forever', leaseTimeoutSeconds: null });
      f.engine.spools.send({ credential: f.admin, spool: 'jobs', queue: 'forever', body: 1 });
      return f.engine.spools.receive({ credential: f.admin, spool: 'jobs', queue: 'forever' });
    })();
    f.clock.advance(10_000);
    const now = T0 + 10_000;
    const response = f.engine.heartbeat({ credential: f.admin, ttl: '2m' });
    expect(response.object).toBe('list');
    expect(response.results).toEqual([
      { claimId: held.claimId, status: 'held', expiresAt: now + 120_000, queueDepth: 1 },
      { claimId: queued.claimId, status: 'queued', expiresAt: now + 120_000, position: 1, queueDepth: 1 },
      { claimId: taskClaim.claimId, status: 'held', expiresAt: now + 900_000 },
      { claimId: spool.message.claimId, status: 'held', expiresAt: now + 60_000 },
      { claimId: forever?.message.claimId, status: 'held' },
    ]);
    expect(f.engine.heartbeat({ credential: f.other, ttl: 30 }).results).toEqual([]);
  });

  it.each([
    [1, 5_000],
    [0, 5_000],
    [1000, 600_000],
    ['PT45S', 45_000],
  ])('clamps ttl %j for space claims', (ttl, ms) => {
    const f = setup();
    acquire(f, 'k', { leaseSeconds: 5 });
    expect(f.engine.heartbeat({ credential: f.admin, ttl }).results[0]?.expiresAt).toBe(T0 + ms);
  });

  it('keeps a heartbeating waiter in line past its first ttl, then grants it', () => {
    const f = setup();
    acquire(f, 'k', { leaseSeconds: 120 });
    const waiter = acquire(f, 'k', { wait: true, leaseSeconds: 10, holderSession: 'sess-w' });
    for (let i = 0; i < 16; i++) {
      f.clock.advance(8_000);
      f.engine.heartbeat({ credential: f.admin, ttl: 10, holderSession: 'sess-w' });
    }
    expect(f.engine.heartbeat({ credential: f.admin, ttl: 10, holderSession: 'sess-w' }).results).toEqual([
      { claimId: waiter.claimId, status: 'held', expiresAt: T0 + 128_000 + 10_000, queueDepth: 0 },
    ]);
  });

  it('reports a loss exactly once, and by claimId while the tombstone lasts', () => {
    const f = setup();
    const claim = acquire(f, 'k');
    f.clock.advance(30_000);
    expect(f.engine.heartbeat({ credential: f.admin, ttl: 30 }).results).toEqual([{ claimId: claim.claimId, status: 'lost' }]);
    expect(f.engine.heartbeat({ credential: f.admin, ttl: 30 }).results).toEqual([]);
    expect(f.engine.heartbeat({ credential: f.admin, ttl: 30, claimId: claim.claimId }).results).toEqual([
      { claimId: claim.claimId, status: 'lost' },
    ]);
    f.clock.advance(10 * 60_000);
    expect(codeOf(() => f.engine.heartbeat({ credential: f.admin, ttl: 30, claimId: claim.claimId }))).toBe('claim_not_found');
  });

  it('forgets losses older than 10 minutes', () => {
    const f = setup();
    acquire(f, 'k');
    f.clock.advance(30_000 + 10 * 60_000);
    expect(f.engine.heartbeat({ credential: f.admin, ttl: 30 }).results).toEqual([]);
    expect(f.engine.stats().tombstones).toBe(0);
  });

  it('touches only the named session, and reports losses to their own session', () => {
    const f = setup();
    const mine = acquire(f, 'a', { holderSession: 'sess-1' });
    const sibling = acquire(f, 'b', { holderSession: 'sess-2' });
    f.clock.advance(20_000);
    expect(f.engine.heartbeat({ credential: f.admin, ttl: 30, holderSession: 'sess-1' }).results.map((r) => r.claimId)).toEqual([
      mine.claimId,
    ]);
    f.clock.advance(15_000);
    expect(f.engine.heartbeat({ credential: f.admin, ttl: 30, holderSession: 'sess-1' }).results).toEqual([
      { claimId: mine.claimId, status: 'held', expiresAt: T0 + 65_000, queueDepth: 0 },
    ]);
    expect(f.engine.heartbeat({ credential: f.admin, ttl: 30, holderSession: 'sess-2' }).results).toEqual([
      { claimId: sibling.claimId, status: 'lost' },
    ]);
    expect(codeOf(() => f.engine.heartbeat({ credential: f.admin, ttl: 30, holderSession: 'sess-2', claimId: mine.claimId }))).toBe(
      'claim_not_found',
    );
  });

  it('refuses claimIds of other credentials and unknown ones', () => {
    const f = setup();
    const claim = acquire(f, 'k');
    expect(codeOf(() => f.engine.heartbeat({ credential: f.other, ttl: 30, claimId: claim.claimId }))).toBe('claim_not_found');
    expect(codeOf(() => f.engine.heartbeat({ credential: f.reader, ttl: 30, claimId: claim.claimId }))).toBe('claim_not_found');
    expect(codeOf(() => f.engine.heartbeat({ credential: f.admin, ttl: 30, claimId: 'clm_nope' }))).toBe('claim_not_found');
  });

  it('stores details on touched leases, shown when read', () => {
    const f = setup();
    acquire(f, 'k');
    const { task, etag } = f.engine.tasks.create({ credential: f.admin, title: 't' });
    f.engine.tasks.claim({ credential: f.admin, taskId: task.id, ifMatch: etag });
    f.engine.heartbeat({ credential: f.admin, ttl: 30, details: { processed: 1200, of: 5000 } });
    expect(f.engine.claims.get({ credential: f.admin, spaceId: SPACE, key: 'k' }).details).toEqual({ processed: 1200, of: 5000 });
    expect(f.engine.tasks.get({ credential: f.admin, taskId: task.id }).task.claim?.details).toEqual({ processed: 1200, of: 5000 });
  });

  it.each([
    ['ttl', { ttl: 'soon' }, 'invalid_ttl'],
    ['details array', { ttl: 30, details: [1] }, 'invalid_request'],
    ['details too big', { ttl: 30, details: { x: 'y'.repeat(17_000) } }, 'invalid_request'],
  ])('validates %s', (_name, body, code) => {
    const f = setup();
    expect(codeOf(() => f.engine.heartbeat({ credential: f.admin, ...body }))).toBe(code);
  });
});
