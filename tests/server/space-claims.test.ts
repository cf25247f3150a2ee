/** Space claims over real HTTP: the seed page's calls, FIFO waiters, fencing, listing, keys and runs. */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ADMIN,
  OTHER,
  READER,
  SCOPE,
  SCOPE_B,
  SPACE,
  envelopeProblems,
  expectError,
  expectStatus,
  startServer,
  stopServers,
  type TestServer,
} from '../support/leasehold-harness.js';

afterEach(stopServers);

const T0 = Date.UTC(2026, 0, 1);

function renew(h: TestServer, key: string, token: string, leaseSeconds?: number) {
  return h.call('renewSpaceClaim', { path: { spaceId: SPACE, key }, json: leaseSeconds === undefined ? { token } : { token, leaseSeconds } });
}

function release(h: TestServer, key: string, token: string, observation?: unknown) {
  return h.call('releaseSpaceClaim', { path: { spaceId: SPACE, key }, json: observation === undefined ? { token } : { token, observation } });
}

function holderOf(h: TestServer, key: string, apiKey = ADMIN) {
  return h.call('getSpaceClaim', { key: apiKey, path: { spaceId: SPACE, key } });
}

describe('the space-claims seed page, call by call', () => {
  it('acquires with an Idempotency-Key, reads the holder, renews and releases', async () => {
    const h = await startServer();
    // curl -X POST .../claims -H "Idempotency-Key: $(uuidgen)" -d '{"key":"<key>","scopeId":"<run id>","holder":"worker-1","holderSession":"<session id>"}'
    const acquired = await h.call('acquireSpaceClaim', {
      path: { spaceId: SPACE },
      idempotencyKey: randomUUID(),
      json: { key: 'reports/2026-11', scopeId: SCOPE, holder: 'worker-1', holderSession: 'sess_4d3c2b1a' },
    });
    expectStatus(acquired, 201);
    expect(acquired.body).toMatchObject({
      object: 'claim',
      key: 'reports/2026-11',
      holder: 'worker-1',
      holderSession: 'sess_4d3c2b1a',
      status: 'held',
      leaseSeconds: 30,
      acquiredAt: T0,
      expiresAt: T0 + 30_000,
      queueDepth: 0,
      previousRelease: null,
    });
    expect(acquired.body.token).toMatch(/^lht_/);
    const { token, claimId, fence } = acquired.body;

    // curl -X GET .../claims/<key>
    const holder = await holderOf(h, 'reports/2026-11');
    expectStatus(holder, 200);
    expect(holder.body).toMatchObject({ claimId, fence, holder: 'worker-1', status: 'held' });
    expect(holder.body).not.toHaveProperty('token');

    // curl -X POST .../claims/<key>/renew -H "Idempotency-Key: $(uuidgen)" -d '{"token":"<lease token>"}'
    await h.control.advanceClock(10_000);
    const renewed = await h.call('renewSpaceClaim', {
      path: { spaceId: SPACE, key: 'reports/2026-11' },
      idempotencyKey: randomUUID(),
      json: { token },
    });
    expectStatus(renewed, 200);
    expect(renewed.body).toMatchObject({ claimId, fence, leaseSeconds: 30, expiresAt: T0 + 40_000 });
    expect(renewed.body).not.toHaveProperty('token');

    // curl -X POST .../claims/<key>/release -H "Idempotency-Key: $(uuidgen)" -d '{"token":"<lease token>"}'
    const released = await h.call('releaseSpaceClaim', {
      path: { spaceId: SPACE, key: 'reports/2026-11' },
      idempotencyKey: randomUUID(),
      json: { token },
    });
    expectStatus(released, 200);
    expect(released.body).toMatchObject({ object: 'claim_release', claimId, released: true, releasedAt: T0 + 10_000, observation: null });
    expectError(await holderOf(h, 'reports/2026-11'), 404, 'claim_not_found');
  });
});

describe('FIFO waiters and fences', () => {
  it('queues waiters first-come first-served and grants them on release, then on expiry', async () => {
    const h = await startServer();
    const a = await h.acquire('k', { holder: 'a', holderSession: 'sa' });
    const b = await h.acquire('k', { holder: 'b', holderSession: 'sb', wait: true, leaseSeconds: 120 });
    const c = await h.acquire('k', { holder: 'c', holderSession: 'sc', wait: true, leaseSeconds: 300, scopeId: SCOPE_B });
    expectStatus(b, 202);
    expect(b.body).toMatchObject({ status: 'queued', position: 1, queueDepth: 1, fence: null, acquiredAt: null });
    expect(c.body).toMatchObject({ status: 'queued', position: 2, queueDepth: 2 });
    expect((await holderOf(h, 'k')).body).toMatchObject({ holder: 'a', queueDepth: 2 });

    // Released: b (first in line) is granted at once, with a larger fence.
    await h.control.advanceClock(5_000);
    expectStatus(await release(h, 'k', a.body.token, { outcome: 'partial' }), 200);
    const afterRelease = await holderOf(h, 'k');
    expect(afterRelease.body).toMatchObject({
      claimId: b.body.claimId,
      holder: 'b',
      status: 'held',
      acquiredAt: T0 + 5_000,
      expiresAt: T0 + 5_000 + 120_000,
      queueDepth: 1,
      previousRelease: { claimId: a.body.claimId, holder: 'a', releasedAt: T0 + 5_000, observation: { outcome: 'partial' } },
    });
    expect(afterRelease.body.fence).toBeGreaterThan(a.body.fence);
    // The granted waiter's token from its 202 now renews; c keeps waiting at position 1.
    expectStatus(await renew(h, 'k', b.body.token, 60), 200);
    const beat = await h.call('heartbeatClaims', { json: { ttl: 300, holderSession: 'sc' } });
    expect(beat.body.results).toEqual([{ claimId: c.body.claimId, status: 'queued', position: 1, queueDepth: 1, expiresAt: T0 + 5_000 + 300_000 }]);

    // Expired: c is granted at b's expiry instant.
    await h.control.advanceClock(60_001);
    const afterExpiry = await holderOf(h, 'k');
    expect(afterExpiry.body).toMatchObject({ claimId: c.body.claimId, holder: 'c', acquiredAt: T0 + 5_000 + 60_000, queueDepth: 0 });
    expect(afterExpiry.body.fence).toBeGreaterThan(afterRelease.body.fence);
    expectError(await renew(h, 'k', b.body.token), 409, 'lease_expired');
    expectStatus(await renew(h, 'k', c.body.token), 200);
  });

  it('drops a waiter that stops heartbeating when its ttl runs out', async () => {
    const h = await startServer();
    await h.acquire('k', { leaseSeconds: 60 });
    const quiet = await h.acquire('k', { wait: true, leaseSeconds: 30, holderSession: 'quiet' });
    const patient = await h.acquire('k', { wait: true, leaseSeconds: 120, holderSession: 'patient' });
    await h.control.advanceClock(60_001);
    expect((await holderOf(h, 'k')).body).toMatchObject({ claimId: patient.body.claimId, acquiredAt: T0 + 60_000 });
    expectError(await renew(h, 'k', quiet.body.token), 409, 'lease_expired');
  });

  it('grows the fence strictly with every grant: new keys, re-grants, waiters, tasks and messages', async () => {
    const h = await startServer();
    const fences: number[] = [];
    const a = await h.acquire('a');
    fences.push(a.body.fence);
    fences.push((await h.acquire('b')).body.fence);
    await h.acquire('a', { wait: true, holderSession: 's2' });
    expectStatus(await release(h, 'a', a.body.token), 200);
    fences.push((await holderOf(h, 'a')).body.fence); // the waiter's grant
    const task = await h.createTask();
    fences.push((await h.claimTask(task.id, task.etag)).claim.fence);
    await h.createQueue('billing', 'invoices');
    await h.sendMessage('billing', 'invoices');
    fences.push((await h.receive('billing', 'invoices')).answer.body.fence);
    await h.control.advanceClock(30_001); // 'b' expires; re-granting it takes a new fence
    fences.push((await h.acquire('b')).body.fence);
    for (let i = 1; i < fences.length; i++) expect(fences[i], `fences ${fences.join(', ')}`).toBeGreaterThan(fences[i - 1]!);
  });

  it("keeps another account's fences still while this account grants: a sequence per account reveals nothing", async () => {
    const h = await startServer();
    const other = (key: string) =>
      h.call('acquireSpaceClaim', { key: OTHER, path: { spaceId: SPACE }, json: { key, scopeId: SCOPE, holder: 'o', holderSession: 'so' } });
    const before = await other('probe-1');
    expectStatus(before, 201);
    // This account grants 25 times, of every kind.
    for (let i = 0; i < 20; i++) await h.acquire(`busy/${i}`);
    for (let i = 0; i < 5; i++) {
      const task = await h.createTask(`task ${i}`);
      await h.claimTask(task.id, task.etag);
    }
    const after = await other('probe-2');
    expectStatus(after, 201);
    expect(after.body.fence, 'the other account sees the next number of its own sequence').toBe(before.body.fence + 1);
    // Both accounts' sequences start from 1: fences are comparable only within one account's resources.
    expect(before.body.fence).toBe(1);
    expect((await h.acquire('busy/last')).body.fence).toBe(26);
  });

  it('answers 409 claim_held to a second claimant that does not wait, and changes nothing', async () => {
    const h = await startServer();
    const first = await h.acquire('k');
    expectError(await h.call('acquireSpaceClaim', { path: { spaceId: SPACE }, json: { key: 'k', scopeId: SCOPE, holder: 'b', holderSession: 's' } }), 409, 'claim_held', 'key');
    expect((await holderOf(h, 'k')).body).toMatchObject({ claimId: first.body.claimId, queueDepth: 0 });
  });
});

describe('listing', () => {
  it('lists held claims by prefix in key order, page by page with limit and cursor', async () => {
    const h = await startServer();
    const keys = ['jobs/b', 'jobs/a/2', 'other', 'jobs/c', 'jobs/a/1', 'jobs/Z', 'jobs/é'];
    for (const key of keys) await h.acquire(key);
    const expected = keys.filter((k) => k.startsWith('jobs/')).sort();
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page++) {
      const answer = await h.call('listSpaceClaims', { path: { spaceId: SPACE }, query: { prefix: 'jobs/', limit: 2, ...(cursor ? { cursor } : {}) } });
      expectStatus(answer, 200);
      expect(answer.body.data.length).toBeLessThanOrEqual(2);
      for (const row of answer.body.data) expect(row).not.toHaveProperty('token');
      seen.push(...answer.body.data.map((row: { key: string }) => row.key));
      cursor = answer.body.nextCursor ?? undefined;
      if (!cursor) break;
    }
    expect(seen).toEqual(expected);
    const all = await h.call('listSpaceClaims', { path: { spaceId: SPACE } });
    expect(all.body).toMatchObject({ object: 'list', nextCursor: null });
    expect(all.body.data.map((row: { key: string }) => row.key)).toEqual([...keys].sort());
  });

  it('with no query string at all, answers a page of the spec\'s default limit (50) and a cursor to the rest', async () => {
    const h = await startServer();
    const keys = Array.from({ length: 51 }, (_, i) => `many/${String(i).padStart(2, '0')}`);
    for (const key of keys) await h.acquire(key);
    const first = await h.call('listSpaceClaims', { path: { spaceId: SPACE } });
    expectStatus(first, 200);
    expect(first.body.data.map((row: { key: string }) => row.key)).toEqual(keys.slice(0, 50));
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const rest = await h.call('listSpaceClaims', { path: { spaceId: SPACE }, query: { cursor: first.body.nextCursor } });
    expect(rest.body).toMatchObject({ data: [expect.objectContaining({ key: 'many/50' })], nextCursor: null });
  });

  it('reports waiters as queueDepth on the held row, not as rows', async () => {
    const h = await startServer();
    await h.acquire('k');
    await h.acquire('k', { wait: true, holderSession: 's2' });
    const answer = await h.call('listSpaceClaims', { key: READER, path: { spaceId: SPACE } });
    expect(answer.body.data).toHaveLength(1);
    expect(answer.body.data[0]).toMatchObject({ key: 'k', status: 'held', queueDepth: 1 });
  });

  it.each([
    [{ limit: 1 }, 200],
    [{ limit: 100 }, 200],
    [{ limit: 0 }, 400],
    [{ limit: 101 }, 400],
    [{ limit: 'ten' }, 400],
    [{ cursor: 'not-ours!' }, 400],
    [{ sort: 'key' }, 400],
  ] as const)('answers %j with %i', async (query, status) => {
    const h = await startServer();
    await h.acquire('k');
    const answer = await h.call('listSpaceClaims', { path: { spaceId: SPACE }, query });
    expect(answer.status).toBe(status);
    if (status === 400) expect(answer.body.param).toBe(Object.keys(query)[0]);
  });
});

describe('keys', () => {
  it.each([
    ['one character', 201, 'k'],
    ['512 characters', 201, 'k'.repeat(512)],
    ['512 non-BMP characters', 201, '😀'.repeat(512)],
    ['slashes, spaces and percent signs', 201, 'a/b c/100%/ü'],
    ['no character', 400, ''],
    ['513 characters', 400, 'k'.repeat(513)],
    ['513 non-BMP characters', 400, '😀'.repeat(513)],
  ])('acquiring a key of %s answers %i', async (_name, status, key) => {
    const h = await startServer();
    const answer = await h.call('acquireSpaceClaim', { path: { spaceId: SPACE }, json: { key, scopeId: SCOPE, holder: 'w', holderSession: 's' } });
    expect(answer.status).toBe(status);
    if (status === 400) expect(answer.body.param).toBe('key');
    else expectStatus(await holderOf(h, key), 200);
  });

  it('reads a key holding "/" percent-encoded as %2F; an unencoded "/" is another path', async () => {
    const h = await startServer();
    await h.acquire('reports/2026-11');
    const encoded = await h.raw(`/v1/spaces/${SPACE}/claims/reports%2F2026-11`, { headers: { authorization: `Bearer ${ADMIN}` } });
    expect(encoded.status).toBe(200);
    expect((encoded.body as { key: string }).key).toBe('reports/2026-11');
    const lower = await h.raw(`/v1/spaces/${SPACE}/claims/reports%2f2026-11`, { headers: { authorization: `Bearer ${ADMIN}` } });
    expect(lower.status).toBe(200);
    const raw = await h.raw(`/v1/spaces/${SPACE}/claims/reports/2026-11`, { headers: { authorization: `Bearer ${ADMIN}` } });
    expect(raw.status).toBe(404);
    expect(envelopeProblems(raw)).toEqual([]);
  });

  it('rejects a 513-character key in the path with 400 naming key', async () => {
    const h = await startServer();
    expectError(await holderOf(h, 'k'.repeat(513)), 400, 'invalid_request', 'key');
  });

  it.each([
    ['"."', '.'],
    ['".."', '..'],
    ['a lone high surrogate', String.raw`report\uD800`],
    ['a lone low surrogate', String.raw`\uDC00report`],
  ])('refuses the unaddressable key %s at acquire with 400 naming key, and holds nothing', async (_name, key) => {
    const h = await startServer();
    const response = await fetch(`${h.origin}/v1/spaces/${SPACE}/claims`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      // Written by hand: a lone surrogate travels as a JSON \u escape (it has no UTF-8 form).
      body: `{"key":"${key}","scopeId":"${SCOPE}","holder":"w","holderSession":"s"}`,
    });
    const body = (await response.json()) as { code?: string; param?: string };
    expect([response.status, body.code, body.param]).toEqual([400, 'invalid_request', 'key']);
    expect((await h.control.stats()).held).toBe(0);
  });

  it('reads, renews and releases at its percent-encoded path every key acquire accepts', async () => {
    const h = await startServer();
    const unit = fc.oneof(
      fc.constantFrom('.', '/', '%', '%2e', '%2E', '?', '#', '&', '+', ' ', '\\', '\u0000', '\n', '~', ';', '\uFFFD', '\uFEFF', '😀', '\u{10FFFF}'),
      fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
      fc.integer({ min: 0xa0, max: 0xd7ff }).map((c) => String.fromCharCode(c)),
    );
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.string({ unit, minLength: 1, maxLength: 8 }).filter((k) => k !== '.' && k !== '..'), async (key) => {
        const spaceId = randomUUID(); // a fresh space per key, so keys never collide
        const path = { spaceId, key };
        const acquired = await h.call('acquireSpaceClaim', { path: { spaceId }, json: { key, scopeId: SCOPE, holder: 'w', holderSession: 's' } });
        expect(acquired.status, JSON.stringify(key)).toBe(201);
        const read = await h.call('getSpaceClaim', { path });
        expect([read.status, read.body.key], JSON.stringify(key)).toEqual([200, key]);
        expectStatus(await h.call('renewSpaceClaim', { path, json: { token: acquired.body.token } }), 200);
        const released = await h.call('releaseSpaceClaim', { path, json: { token: acquired.body.token } });
        expect([released.status, released.body.key]).toEqual([200, key]);
        n++;
      }),
      { numRuns: 60, seed: 0x6b657973 },
    );
    expect(n).toBe(60);
  });
});

describe('lease seconds', () => {
  it.each([
    [4, 400],
    [5, 201],
    [600, 201],
    [601, 400],
  ])('acquire with leaseSeconds %i answers %i', async (leaseSeconds, status) => {
    const h = await startServer();
    const answer = await h.call('acquireSpaceClaim', { path: { spaceId: SPACE }, json: { key: 'k', scopeId: SCOPE, holder: 'w', holderSession: 's', leaseSeconds } });
    expect(answer.status).toBe(status);
    if (status === 201) expect(answer.body.expiresAt).toBe(T0 + leaseSeconds * 1000);
    else expect(answer.body.param).toBe('leaseSeconds');
  });

  it('renews from now for leaseSeconds (default 30), never from the old expiry', async () => {
    const h = await startServer();
    const claim = await h.acquire('k', { leaseSeconds: 600 });
    await h.control.advanceClock(20_000);
    expect((await renew(h, 'k', claim.body.token)).body).toMatchObject({ leaseSeconds: 30, expiresAt: T0 + 50_000 });
    expect((await renew(h, 'k', claim.body.token, 120)).body).toMatchObject({ leaseSeconds: 120, expiresAt: T0 + 140_000 });
    await h.control.advanceClock(119_999);
    expectStatus(await holderOf(h, 'k'), 200);
    await h.control.advanceClock(1);
    expectError(await holderOf(h, 'k'), 404, 'claim_not_found');
  });
});

describe('release', () => {
  it('answers 200 with the same row when repeated, and 409 for a token that never held the key', async () => {
    const h = await startServer();
    const claim = await h.acquire('k');
    const first = await release(h, 'k', claim.body.token, { rows: 12 });
    const again = await release(h, 'k', claim.body.token, { rows: 12 });
    expectStatus(again, 200);
    expect(again.body).toEqual(first.body);
    expectError(await release(h, 'k', 'lht_notatokenofthisserver_xx'), 409, 'claim_not_held');
  });

  it('shows the observation to the next holder as previousRelease, even after the key sat free', async () => {
    const h = await startServer();
    const first = await h.acquire('k', { holder: 'worker-2' });
    await h.control.advanceClock(1_000);
    expectStatus(await release(h, 'k', first.body.token, { outcome: 'rebuilt', rows: 5000 }), 200);
    await h.control.advanceClock(60_000);
    const next = await h.acquire('k');
    expect(next.body.previousRelease).toEqual({ claimId: first.body.claimId, holder: 'worker-2', releasedAt: T0 + 1_000, observation: { outcome: 'rebuilt', rows: 5000 } });
    expect((await holderOf(h, 'k')).body.previousRelease).toEqual(next.body.previousRelease);
  });

  it('lets a waiter leave the queue by releasing its token', async () => {
    const h = await startServer();
    await h.acquire('k');
    const waiter = await h.acquire('k', { wait: true, holderSession: 's2' });
    expectStatus(await release(h, 'k', waiter.body.token), 200);
    expect((await holderOf(h, 'k')).body.queueDepth).toBe(0);
  });
});

describe('runs (scopes)', () => {
  it('cancels a run: renew is 409 scope_cancelled, the heartbeat reports lost once, release with the token is 200', async () => {
    const h = await startServer();
    const mine = await h.acquire('k', { holderSession: 'sa' });
    const theirs = await h.acquire('k', { wait: true, scopeId: SCOPE_B, holderSession: 'sb' });
    const cancelled = await h.call('cancelScope', { path: { spaceId: SPACE, scopeId: SCOPE } });
    expect(cancelled.body).toMatchObject({ object: 'scope_cancellation', scopeId: SCOPE, cancelled: true, cancelledAt: T0, claimsLost: 1 });
    // The key passed to the waiter of the other run.
    expect((await holderOf(h, 'k')).body).toMatchObject({ claimId: theirs.body.claimId, status: 'held' });

    expectError(await renew(h, 'k', mine.body.token), 409, 'scope_cancelled');
    const first = await h.call('heartbeatClaims', { json: { ttl: 30, holderSession: 'sa' } });
    expect(first.body.results).toEqual([{ claimId: mine.body.claimId, status: 'lost' }]);
    const second = await h.call('heartbeatClaims', { json: { ttl: 30, holderSession: 'sa' } });
    expect(second.body.results).toEqual([]);
    expectStatus(await release(h, 'k', mine.body.token), 200);

    expectError(await h.call('acquireSpaceClaim', { path: { spaceId: SPACE }, json: { key: 'new', scopeId: SCOPE, holder: 'w', holderSession: 's' } }), 409, 'scope_cancelled');
    expect((await h.call('cancelScope', { path: { spaceId: SPACE, scopeId: SCOPE } })).body.claimsLost).toBe(0);
  });

  it('still reports a cancelled lease lost once when it was released with its token first', async () => {
    const h = await startServer();
    const claim = await h.acquire('k');
    expectStatus(await h.call('cancelScope', { path: { spaceId: SPACE, scopeId: SCOPE } }), 200);
    expectStatus(await release(h, 'k', claim.body.token), 200);
    expect((await h.call('heartbeatClaims', { json: { ttl: 30 } })).body.results).toEqual([{ claimId: claim.body.claimId, status: 'lost' }]);
    expect((await h.call('heartbeatClaims', { json: { ttl: 30 } })).body.results).toEqual([]);
  });

  it('cancels queued claims of the run too', async () => {
    const h = await startServer();
    await h.acquire('k', { scopeId: SCOPE_B });
    const waiter = await h.acquire('k', { wait: true });
    expect((await h.call('cancelScope', { path: { spaceId: SPACE, scopeId: SCOPE } })).body.claimsLost).toBe(1);
    expect((await holderOf(h, 'k')).body.queueDepth).toBe(0);
    expectError(await renew(h, 'k', waiter.body.token), 409, 'scope_cancelled');
  });
});

describe('credentials and accounts', () => {
  it('shares claims between keys of one account and hides them from another account (404, never 403)', async () => {
    const h = await startServer();
    const claim = await h.acquire('k');
    expect((await holderOf(h, 'k', READER)).body).toMatchObject({ claimId: claim.body.claimId });
    expectError(await holderOf(h, 'k', OTHER), 404, 'claim_not_found');
    expectError(await h.call('renewSpaceClaim', { key: OTHER, path: { spaceId: SPACE, key: 'k' }, json: { token: claim.body.token } }), 409, 'claim_not_held');
    // The same space id names the other account's own space: its key is free there.
    const theirs = await h.acquire('k', {}, { key: OTHER });
    expectStatus(theirs, 201);
    expect((await h.call('listSpaceClaims', { key: OTHER, path: { spaceId: SPACE } })).body.data.map((r: { claimId: string }) => r.claimId)).toEqual([theirs.body.claimId]);
  });

  it('refuses writes to the read-only key with 403 permission_denied', async () => {
    const h = await startServer();
    const claim = await h.acquire('k');
    expectError(await h.call('acquireSpaceClaim', { key: READER, path: { spaceId: SPACE }, json: { key: 'x', scopeId: SCOPE, holder: 'w', holderSession: 's' } }), 403, 'permission_denied');
    expectError(await h.call('renewSpaceClaim', { key: READER, path: { spaceId: SPACE, key: 'k' }, json: { token: claim.body.token } }), 403, 'permission_denied');
    expectError(await h.call('cancelScope', { key: READER, path: { spaceId: SPACE, scopeId: SCOPE } }), 403, 'permission_denied');
  });

  it('compares space ids case-insensitively', async () => {
    const h = await startServer();
    const claim = await h.acquire('k', {}, { path: { spaceId: SPACE.toUpperCase() } });
    expect(claim.body.spaceId).toBe(SPACE);
    expect((await holderOf(h, 'k')).body.claimId).toBe(claim.body.claimId);
  });
});
