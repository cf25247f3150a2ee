/** The batch heartbeat over real HTTP: the seed page's request, ttl forms, sessions, details and lost reports. */
import { afterEach, describe, expect, it } from 'vitest';
import {
  ADMIN,
  OTHER,
  SPACE,
  expectContract,
  expectError,
  expectStatus,
  startServer,
  stopServers,
  type TestServer,
} from '../support/leasehold-harness.js';
import { observe } from '../support/response-contract.js';


/** RFC 3339 in whole seconds, as the server answers timestamps (rounded down). */
const utcSeconds = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
afterEach(stopServers);

const T0 = Date.UTC(2026, 0, 1);

function beat(h: TestServer, json: unknown, key = ADMIN) {
  return h.call('heartbeatClaims', { key, json });
}

function holderOf(h: TestServer, key: string) {
  return h.call('getSpaceClaim', { path: { spaceId: SPACE, key } });
}

describe('the heartbeat seed page', () => {
  it('answers its own example body { claimId, ttl: 0, details } with one ack that never shortens the lease', async () => {
    const h = await startServer();
    const claim = await h.acquire('reports/2026-11'); // leaseSeconds 30: expires at T0 + 30 s
    const answer = await beat(h, { claimId: claim.body.claimId, ttl: 0, details: {} });
    expectStatus(answer, 200);
    expect(answer.body).toEqual({
      object: 'list',
      results: [{ claimId: claim.body.claimId, status: 'held', expiresAt: T0 + 30_000, queueDepth: 0 }],
    });
    const row = (await holderOf(h, 'reports/2026-11')).body;
    expect(row).toMatchObject({ details: {}, expiresAt: T0 + 30_000, leaseSeconds: 30 });
  });

  it('never moves a held or queued space claim earlier, whatever the ttl; a longer ttl extends it', async () => {
    const h = await startServer();
    const held = await h.acquire('k', { leaseSeconds: 600 });
    const waiter = await h.acquire('k', { wait: true, leaseSeconds: 300, holderSession: 'sess-w' });
    await h.control.advanceClock(10_000);
    for (const ttl of [0, 1, '5s', 30, 'PT2M']) {
      const results = (await beat(h, { ttl })).body.results;
      expect(results, `ttl ${ttl}`).toEqual([
        { claimId: held.body.claimId, status: 'held', expiresAt: T0 + 600_000, queueDepth: 1 },
        { claimId: waiter.body.claimId, status: 'queued', expiresAt: T0 + 300_000, position: 1, queueDepth: 1 },
      ]);
    }
    await h.control.advanceClock(280_000); // now T0 + 290 s: 600 s from now is later than both
    const extended = (await beat(h, { ttl: 600 })).body.results;
    expect(extended.map((r: { expiresAt: number }) => r.expiresAt)).toEqual([T0 + 890_000, T0 + 890_000]);
    expect((await holderOf(h, 'k')).body).toMatchObject({ expiresAt: T0 + 890_000, leaseSeconds: 600 });
  });

  it('accepts the Python requests call: json= body with its default separators and headers', async () => {
    const h = await startServer();
    const claim = await h.acquire('reports/2026-11');
    // requests.post(url, headers={"Content-Type": "application/json"}, json={...}) sends json.dumps output:
    const body = `{"claimId": "${claim.body.claimId}", "ttl": 30, "details": {"step": "render", "pct": 40}}`;
    const response = await fetch(`${h.origin}/v1/claims/heartbeat`, {
      method: 'POST',
      headers: {
        'User-Agent': 'python-requests/2.32.3',
        'Accept-Encoding': 'gzip, deflate',
        Accept: '*/*',
        'Content-Type': 'application/json',
        Authorization: `Bearer ${ADMIN}`,
      },
      body,
    });
    const observed = await observe(response);
    expectContract('heartbeatClaims', observed);
    expect(observed.status).toBe(200);
    expect(observed.body).toEqual({ object: 'list', results: [{ claimId: claim.body.claimId, status: 'held', expiresAt: T0 + 30_000, queueDepth: 0 }] });
    expect((await holderOf(h, 'reports/2026-11')).body.details).toEqual({ step: 'render', pct: 40 });
  });
});

describe('ttl', () => {
  it.each([
    [30, 30],
    ['30', 30],
    ['30s', 30],
    ['5m', 300],
    ['PT30S', 30],
    ['PT1M30S', 90],
    ['1m30s', 90],
    ['1500ms', 5],
    [1, 5],
    [12.5, 12.5],
    [1000, 600],
    ['1h', 600],
  ] as const)('ttl %j extends a held claim by %i s (clamped to 5–600)', async (ttl, seconds) => {
    const h = await startServer();
    const claim = await h.acquire('k', { leaseSeconds: 5 }); // the shortest lease, so every ttl extends it
    await h.control.advanceClock(1_000);
    const answer = await beat(h, { ttl });
    expect(answer.body.results).toEqual([{ claimId: claim.body.claimId, status: 'held', expiresAt: T0 + 1_000 + seconds * 1000, queueDepth: 0 }]);
    expect((await holderOf(h, 'k')).body.expiresAt).toBe(T0 + 1_000 + seconds * 1000);
  });

  it.each([['soon'], ['30x'], ['P30S'], ['-5'], [''], [true], [{}], [[30]]])('ttl %j carries no duration: 400 invalid_ttl with param ttl, saying nothing was renewed', async (ttl) => {
    const h = await startServer();
    const answer = await beat(h, { ttl });
    expectError(answer, 400, 'invalid_ttl', 'ttl');
    expect(answer.body.message).toMatch(/Nothing was renewed/);
  });

  it.each([[{}], [{ ttl: null }]])('%j renews each held claim for its own term (not required)', async (body) => {
    const h = await startServer();
    const claim = await h.acquire('k', { leaseSeconds: 40 });
    await h.control.advanceClock(10_000);
    const answer = await beat(h, body);
    expect(answer.body.results).toEqual([{ claimId: claim.body.claimId, status: 'held', expiresAt: T0 + 10_000 + 40_000, queueDepth: 0 }]);
  });

  it('a negative ttl counts as 0: clamped to 5 s, never moving a claim earlier', async () => {
    const h = await startServer();
    const claim = await h.acquire('k', { leaseSeconds: 5 });
    await h.control.advanceClock(1_000);
    const answer = await beat(h, { ttl: -1 });
    expect(answer.body.results).toEqual([{ claimId: claim.body.claimId, status: 'held', expiresAt: T0 + 1_000 + 5_000, queueDepth: 0 }]);
  });

  it('rejects unknown fields by name', async () => {
    const h = await startServer();
    expectError(await beat(h, { ttl: 30, lease: 'x' }), 400, 'invalid_request', 'lease');
  });
});

describe('what a heartbeat touches', () => {
  it('renews every lease of the credential, of every kind, in one request', async () => {
    const h = await startServer();
    const held = await h.acquire('held', { holderSession: 'w1' });
    await h.acquire('busy', { holderSession: 'someone' }, { key: ADMIN });
    const queued = await h.acquire('busy', { wait: true, holderSession: 'w1', leaseSeconds: 60 });
    const task = await h.createTask();
    const taskClaim = await h.claimTask(task.id, task.etag, { 'Leasehold-Session': 'w1' });
    await h.createQueue('billing', 'invoices', 45);
    await h.sendMessage('billing', 'invoices');
    const message = await h.receive('billing', 'invoices', { 'Leasehold-Session': 'w1' });
    await h.call('putQueue', { path: { spool: 'billing', queue: 'forever' }, json: { leaseTimeoutSeconds: null } });
    await h.sendMessage('billing', 'forever');
    const forever = await h.receive('billing', 'forever', { 'Leasehold-Session': 'w1' });

    await h.control.advanceClock(10_000);
    const answer = await beat(h, { ttl: '2m', holderSession: 'w1' });
    const now = T0 + 10_000;
    expect(answer.body.results).toHaveLength(5);
    expect(answer.body.results).toEqual(
      expect.arrayContaining([
        { claimId: held.body.claimId, status: 'held', expiresAt: now + 120_000, queueDepth: 0 },
        { claimId: queued.body.claimId, status: 'queued', expiresAt: now + 120_000, position: 1, queueDepth: 1 },
        { claimId: taskClaim.claim.claimId, status: 'held', expiresAt: now + 900_000 },
        { claimId: message.answer.body.claimId, status: 'held', expiresAt: now + 45_000 },
        { claimId: forever.answer.body.claimId, status: 'held' },
      ]),
    );
    for (const result of answer.body.results) expect(result).not.toHaveProperty('token');
    const read = await h.call('getTask', { path: { taskId: task.id } });
    expect(read.body.claim.expiresUtc).toBe(utcSeconds(now + 900_000));
    expect(read.headers.get('etag')).toBe(taskClaim.etag);
  });

  it('with holderSession, leaves other sessions alone: their leases expire', async () => {
    const h = await startServer();
    const mine = await h.acquire('mine', { holderSession: 'alive' });
    const crashed = await h.acquire('crashed', { holderSession: 'dead' });
    for (let i = 0; i < 3; i++) {
      await h.control.advanceClock(20_000);
      const answer = await beat(h, { ttl: 30, holderSession: 'alive' });
      expect(answer.body.results.map((r: { claimId: string }) => r.claimId)).toEqual([mine.body.claimId]);
    }
    expectStatus(await holderOf(h, 'mine'), 200);
    expectError(await holderOf(h, 'crashed'), 404, 'claim_not_found');
    expectError(await h.call('renewSpaceClaim', { path: { spaceId: SPACE, key: 'crashed' }, json: { token: crashed.body.token } }), 409, 'lease_expired');
    // The next heartbeat of the dead session reports its loss once.
    expect((await beat(h, { ttl: 30, holderSession: 'dead' })).body.results).toEqual([{ claimId: crashed.body.claimId, status: 'lost' }]);
  });

  it('with claimId, touches only that lease', async () => {
    const h = await startServer();
    const one = await h.acquire('one');
    await h.acquire('two');
    await h.control.advanceClock(20_000);
    const answer = await beat(h, { ttl: 60, claimId: one.body.claimId });
    expect(answer.body.results).toEqual([{ claimId: one.body.claimId, status: 'held', expiresAt: T0 + 80_000, queueDepth: 0 }]);
    await h.control.advanceClock(10_001);
    expectStatus(await holderOf(h, 'one'), 200);
    expectError(await holderOf(h, 'two'), 404);
  });

  it('answers 404 for a claimId of another session, another account, or none at all', async () => {
    const h = await startServer();
    const claim = await h.acquire('k', { holderSession: 's1' });
    expectError(await beat(h, { ttl: 30, claimId: claim.body.claimId, holderSession: 's2' }), 404, 'claim_not_found', 'claimId');
    expectError(await beat(h, { ttl: 30, claimId: claim.body.claimId }, OTHER), 404, 'claim_not_found', 'claimId');
    expectError(await beat(h, { ttl: 30, claimId: 'clm_nothing' }), 404, 'claim_not_found', 'claimId');
    expect((await beat(h, { ttl: 30 }, OTHER)).body.results).toEqual([]);
  });
});

describe('claimIds: exactly the leases a client tracks', () => {
  it('touches only the named leases; the session\'s other leases (ghosts the client never learned of) expire within one term', async () => {
    const h = await startServer();
    const tracked = await h.acquire('tracked', { holderSession: 'w1' });
    const ghost = await h.acquire('ghost', { holderSession: 'w1' }); // its answer "was lost": the client never saw it
    const task = await h.createTask();
    const taskClaim = await h.claimTask(task.id, task.etag, { 'Leasehold-Session': 'w1' });
    await h.createQueue('billing', 'invoices', 45);
    await h.sendMessage('billing', 'invoices');
    const message = await h.receive('billing', 'invoices', { 'Leasehold-Session': 'w1' });
    const named = [tracked.body.claimId, taskClaim.claim.claimId, message.answer.body.claimId];
    for (let i = 0; i < 3; i++) {
      await h.control.advanceClock(20_000);
      const now = T0 + 20_000 * (i + 1);
      const answer = await beat(h, { ttl: 30, holderSession: 'w1', claimIds: named });
      expectStatus(answer, 200);
      expect(answer.body.results).toEqual([
        { claimId: tracked.body.claimId, status: 'held', expiresAt: now + 30_000, queueDepth: 0 },
        { claimId: taskClaim.claim.claimId, status: 'held', expiresAt: now + 900_000 },
        { claimId: message.answer.body.claimId, status: 'held', expiresAt: now + 45_000 },
      ]);
    }
    expectStatus(await holderOf(h, 'tracked'), 200);
    expectError(await holderOf(h, 'ghost'), 404, 'claim_not_found');
    // The ghost's key is free again: the next acquire gets it at once instead of queueing behind it.
    expectStatus(await h.acquire('ghost', { holderSession: 'w1', wait: true }), 201);
    // Without claimIds the seed behaviour is unchanged: the ghost's loss is reported once.
    expect((await beat(h, { ttl: 30, holderSession: 'w1' })).body.results).toEqual(
      expect.arrayContaining([{ claimId: ghost.body.claimId, status: 'lost' }]),
    );
  });

  it('answers lost for ids it may not touch (unknown, released, expired, another session or account), once per id, in order', async () => {
    const h = await startServer();
    const mine = await h.acquire('mine', { holderSession: 's1' });
    const theirs = await h.acquire('theirs', { holderSession: 's2' });
    const released = await h.acquire('released', { holderSession: 's1' });
    expectStatus(await h.call('releaseSpaceClaim', { path: { spaceId: SPACE, key: 'released' }, json: { token: released.body.token } }), 200);
    const otherAccount = await h.acquire('foreign', { holderSession: 's1' }, { key: OTHER });
    const ids = ['clm_nothing', mine.body.claimId, theirs.body.claimId, released.body.claimId, otherAccount.body.claimId, mine.body.claimId];
    const answer = await beat(h, { ttl: 30, holderSession: 's1', claimIds: ids });
    expectStatus(answer, 200);
    expect(answer.body.results).toEqual([
      { claimId: 'clm_nothing', status: 'lost' },
      { claimId: mine.body.claimId, status: 'held', expiresAt: T0 + 30_000, queueDepth: 0 },
      { claimId: theirs.body.claimId, status: 'lost' },
      { claimId: released.body.claimId, status: 'lost' },
      { claimId: otherAccount.body.claimId, status: 'lost' },
    ]);
    // Another session's lease named by mistake is not renewed: it expires on its own term.
    await h.control.advanceClock(30_001);
    expectError(await holderOf(h, 'theirs'), 404, 'claim_not_found');
    expect((await beat(h, { ttl: 30, holderSession: 's1', claimIds: [mine.body.claimId] })).body.results).toEqual([
      { claimId: mine.body.claimId, status: 'lost' },
    ]);
  });

  it('keeps a queued claim\'s place and reports its grant; an empty list touches nothing', async () => {
    const h = await startServer();
    const first = await h.acquire('k', { holderSession: 'a' });
    const waiter = await h.acquire('k', { wait: true, holderSession: 'b', leaseSeconds: 60 });
    expect((await beat(h, { ttl: 60, holderSession: 'b', claimIds: [waiter.body.claimId] })).body.results).toEqual([
      { claimId: waiter.body.claimId, status: 'queued', expiresAt: T0 + 60_000, position: 1, queueDepth: 1 },
    ]);
    expect((await beat(h, { ttl: 60, holderSession: 'a', claimIds: [] })).body.results).toEqual([]);
    expectStatus(await h.call('releaseSpaceClaim', { path: { spaceId: SPACE, key: 'k' }, json: { token: first.body.token } }), 200);
    expect((await beat(h, { ttl: 60, holderSession: 'b', claimIds: [waiter.body.claimId] })).body.results).toEqual([
      { claimId: waiter.body.claimId, status: 'held', expiresAt: T0 + 60_000, queueDepth: 0 },
    ]);
  });

  it('refuses claimIds with claimId, over 10,000 ids, or ids that are not strings, with 400 naming claimIds (or the bad item)', async () => {
    const h = await startServer();
    const claim = await h.acquire('k');
    expectError(await beat(h, { ttl: 30, claimId: claim.body.claimId, claimIds: [claim.body.claimId] }), 400, undefined, 'claimIds');
    expectError(await beat(h, { ttl: 30, claimIds: Array.from({ length: 10_001 }, (_, i) => `clm_${i}`) }), 400, undefined, 'claimIds');
    expectError(await beat(h, { ttl: 30, claimIds: [42] }), 400, undefined, 'claimIds.0');
    expectError(await beat(h, { ttl: 30, claimIds: 'clm_x' }), 400, undefined, 'claimIds');
    const full = await beat(h, { ttl: 30, claimIds: [claim.body.claimId, ...Array.from({ length: 9_999 }, (_, i) => `clm_${i}`)] });
    expectStatus(full, 200);
    expect(full.body.results).toHaveLength(10_000);
  });
});

describe('details', () => {
  it('stores details on every touched lease and shows them when the lease is read', async () => {
    const h = await startServer();
    await h.acquire('k');
    const task = await h.createTask();
    await h.claimTask(task.id, task.etag);
    const details = { step: 'render', pct: 40, nested: { pages: [1, 2] } };
    expectStatus(await beat(h, { ttl: 30, details }), 200);
    expect((await holderOf(h, 'k')).body.details).toEqual(details);
    expect((await h.call('getTask', { path: { taskId: task.id } })).body.claim.details).toEqual(details);
    expect((await h.call('listSpaceClaims', { path: { spaceId: SPACE } })).body.data[0].details).toEqual(details);
    // A heartbeat without details keeps the last report.
    await beat(h, { ttl: 30 });
    expect((await holderOf(h, 'k')).body.details).toEqual(details);
  });

  it('rejects details over 16 KiB or not an object with 400 naming details', async () => {
    const h = await startServer();
    await h.acquire('k');
    expectError(await beat(h, { ttl: 30, details: { blob: 'x'.repeat(17 * 1024) } }), 400, undefined, 'details');
    expectError(await beat(h, { ttl: 30, details: 'progress' }), 400, undefined, 'details');
    expect((await holderOf(h, 'k')).body.details).toBeNull();
  });
});

describe('lost leases', () => {
  it('reports a lease lost since the last report exactly once', async () => {
    const h = await startServer();
    const claim = await h.acquire('k');
    await h.control.advanceClock(30_001);
    expect((await beat(h, { ttl: 30 })).body.results).toEqual([{ claimId: claim.body.claimId, status: 'lost' }]);
    expect((await beat(h, { ttl: 30 })).body.results).toEqual([]);
  });

  it('reports a queued claim held once it is granted', async () => {
    const h = await startServer();
    const first = await h.acquire('k', { holderSession: 'a' });
    const waiter = await h.acquire('k', { wait: true, holderSession: 'b', leaseSeconds: 60 });
    expect((await beat(h, { ttl: 60, holderSession: 'b' })).body.results[0]).toMatchObject({ status: 'queued', position: 1 });
    expectStatus(await h.call('releaseSpaceClaim', { path: { spaceId: SPACE, key: 'k' }, json: { token: first.body.token } }), 200);
    expect((await beat(h, { ttl: 60, holderSession: 'b' })).body.results).toEqual([
      { claimId: waiter.body.claimId, status: 'held', expiresAt: T0 + 60_000, queueDepth: 0 },
    ]);
  });
});

describe('idempotency', () => {
  it('replays a heartbeat sent with an Idempotency-Key instead of running it twice', async () => {
    const h = await startServer();
    await h.acquire('k');
    const first = await h.call('heartbeatClaims', { json: { ttl: 30 }, idempotencyKey: 'beat-1' });
    await h.control.advanceClock(5_000);
    const again = await h.call('heartbeatClaims', { json: { ttl: 30 }, idempotencyKey: 'beat-1' });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
  });

  it('replays a large heartbeat answer (over 4 KiB: stored compressed by a SQL store) exactly', async () => {
    const h = await startServer();
    for (let i = 0; i < 80; i++) await h.acquire(`k-${i}`);
    const first = await h.call('heartbeatClaims', { json: { ttl: 30 }, idempotencyKey: 'beat-large' });
    expect(JSON.stringify(first.body).length).toBeGreaterThan(4096);
    await h.control.advanceClock(5_000);
    const again = await h.call('heartbeatClaims', { json: { ttl: 30 }, idempotencyKey: 'beat-large' });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((again.body as { results: unknown[] }).results).toHaveLength(80);
  });
});
