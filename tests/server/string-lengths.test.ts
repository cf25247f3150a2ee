/**
 * One length rule everywhere (issue 23): every string limit of the API counts Unicode code
 * points, as JSON Schema's `minLength` / `maxLength` do, so an emoji (two UTF-16 units) is one
 * character in a key, a holder, a session, a task title and a note — through the generated
 * validators and the engine alike, on every store.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SPACE, expectError, expectStatus, startServer, stopServers } from '../support/leasehold-harness.js';

afterEach(stopServers);

const emoji = (n: number) => '😀'.repeat(n); // U+1F600: one code point, two UTF-16 units

describe('string lengths count code points', () => {
  it('space claims: key (1–512), holder and holderSession (1–200) take astral characters up to the limit, one more is 400', async () => {
    const h = await startServer();
    const claim = await h.acquire(emoji(512), { holder: emoji(200), holderSession: emoji(200) });
    expectStatus(claim, 201);
    expect(claim.body).toMatchObject({ key: emoji(512), holder: emoji(200), holderSession: emoji(200) });
    expectError(await h.call('acquireSpaceClaim', { path: { spaceId: SPACE }, json: { key: emoji(513), scopeId: '6f1c7d3e-2b4a-4c5d-8e9f-0a1b2c3d4e5f', holder: 'w', holderSession: 's' } }), 400, 'invalid_request', 'key');
    for (const field of ['holder', 'holderSession'] as const) {
      const answer = await h.call('acquireSpaceClaim', {
        path: { spaceId: SPACE },
        json: { key: `k-${field}`, scopeId: '6f1c7d3e-2b4a-4c5d-8e9f-0a1b2c3d4e5f', holder: 'w', holderSession: 's', [field]: emoji(201) },
      });
      expectError(answer, 400, 'invalid_request', field);
      expect(answer.body.message).toMatch(/1 to 200 characters \(Unicode code points\)/);
    }
    // A heartbeat filters by a 200-emoji session.
    const beat = await h.call('heartbeatClaims', { json: { holderSession: emoji(200) } });
    expectStatus(beat, 200);
    expect(beat.body.results).toEqual([expect.objectContaining({ claimId: claim.body.claimId, status: 'held' })]);
  });

  it('tasks: title (1–500) and note text (1–20,000) take astral characters up to the limit, one more is 400', async () => {
    const h = await startServer();
    const created = await h.call('createTask', { json: { title: emoji(500) } });
    expectStatus(created, 201);
    expect(created.body.title).toBe(emoji(500));
    expectError(await h.call('createTask', { json: { title: emoji(501) } }), 400, 'invalid_request', 'title');
    const etag = created.headers.get('etag') as string;
    const patched = await h.call('updateTask', { path: { taskId: created.body.id }, headers: { 'If-Match': etag }, json: { title: emoji(500) } });
    expectStatus(patched, 200);
    expectError(
      await h.call('updateTask', { path: { taskId: created.body.id }, headers: { 'If-Match': patched.headers.get('etag') as string }, json: { title: emoji(501) } }),
      400,
      'invalid_request',
      'title',
    );
    const noted = await h.call('addTaskNote', { path: { taskId: created.body.id }, headers: { 'If-Match': patched.headers.get('etag') as string }, json: { text: emoji(20_000) } });
    expectStatus(noted, 201);
    expectError(
      await h.call('addTaskNote', { path: { taskId: created.body.id }, headers: { 'If-Match': noted.headers.get('etag') as string }, json: { text: emoji(20_001) } }),
      400,
      'invalid_request',
      'text',
    );
  });
});
