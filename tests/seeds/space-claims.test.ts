/**
 * `space-claims.txt`, as its reader uses it: the page's curl commands, run in bash exactly as
 * written with `$RUNSTATE_BASE_URL`, `$RUNSTATE_SPACE_ID`, `$RUNSTATE_API_KEY` set and the
 * `<placeholders>` filled (`$(uuidgen)` included), against one server started with its defaults;
 * and the page's error handling, which reads `body.error.code` and `body.error.requestId`.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { curl, SEED_SERVER_START_MS, startSeedServer, type SeedServer } from './support/seed-server.js';

let server: SeedServer;
let env: Record<string, string>;
beforeAll(async () => {
  server = await startSeedServer();
  // "All paths are relative to the API base URL": the server's root.
  env = { RUNSTATE_BASE_URL: server.origin, RUNSTATE_SPACE_ID: randomUUID(), RUNSTATE_API_KEY: 'lh_test_admin' };
}, SEED_SERVER_START_MS);
afterAll(() => server?.stop());

const RUN_ID = randomUUID();

const page = {
  list: `curl -X GET "$RUNSTATE_BASE_URL/v1/spaces/$RUNSTATE_SPACE_ID/claims" \\
  -H "Authorization: Bearer $RUNSTATE_API_KEY"`,
  acquire: (key: string, holder = 'worker-1', session = 'sess-worker-1') => `curl -X POST "$RUNSTATE_BASE_URL/v1/spaces/$RUNSTATE_SPACE_ID/claims" \\
  -H "Authorization: Bearer $RUNSTATE_API_KEY" \\
  -H "Idempotency-Key: $(uuidgen)" \\
  -H "Content-Type: application/json" \\
  -d '{"key":"${key}","scopeId":"${RUN_ID}","holder":"${holder}","holderSession":"${session}"}'`,
  holder: (key: string) => `curl -X GET "$RUNSTATE_BASE_URL/v1/spaces/$RUNSTATE_SPACE_ID/claims/${key}" \\
  -H "Authorization: Bearer $RUNSTATE_API_KEY"`,
  renew: (key: string, token: string) => `curl -X POST "$RUNSTATE_BASE_URL/v1/spaces/$RUNSTATE_SPACE_ID/claims/${key}/renew" \\
  -H "Authorization: Bearer $RUNSTATE_API_KEY" \\
  -H "Idempotency-Key: $(uuidgen)" \\
  -H "Content-Type: application/json" \\
  -d '{"token":"${token}"}'`,
  release: (key: string, token: string) => `curl -X POST "$RUNSTATE_BASE_URL/v1/spaces/$RUNSTATE_SPACE_ID/claims/${key}/release" \\
  -H "Authorization: Bearer $RUNSTATE_API_KEY" \\
  -H "Idempotency-Key: $(uuidgen)" \\
  -H "Content-Type: application/json" \\
  -d '{"token":"${token}"}'`,
};

/** The page's error handling: `{"error":{"code","message","requestId"}}`. */
function pageError(answer: { headers: Record<string, string>; json: any }): { code: string; message: string; requestId: string } {
  const { code, message, requestId } = answer.json.error as { code: string; message: string; requestId: string };
  expect(typeof message).toBe('string');
  expect(requestId, 'error.requestId is the Request-Id header').toBe(answer.headers['request-id']);
  return { code, message, requestId };
}

describe('the space-claims page against one default server', () => {
  it('lists, acquires, reads the holder, renews and releases with its curl commands', async () => {
    const empty = await curl(page.list, env);
    expect([empty.status, empty.json]).toEqual([200, { object: 'list', data: [], nextCursor: null }]);

    const acquired = await curl(page.acquire('nightly-report'), env);
    expect(acquired.status, acquired.body).toBe(201); // "Claim held; fenced token returned"
    expect(acquired.json).toMatchObject({ key: 'nightly-report', scopeId: RUN_ID, holder: 'worker-1', holderSession: 'sess-worker-1', status: 'held', leaseSeconds: 30 });
    expect(acquired.json.token).toEqual(expect.any(String));
    expect(acquired.json.fence).toBeGreaterThanOrEqual(1);

    const holder = await curl(page.holder('nightly-report'), env);
    expect(holder.status).toBe(200); // "Claim row"
    expect(holder.json).toMatchObject({ claimId: acquired.json.claimId, holder: 'worker-1', fence: acquired.json.fence });
    expect(holder.json).not.toHaveProperty('token');

    const renewed = await curl(page.renew('nightly-report', acquired.json.token), env);
    expect(renewed.status).toBe(200); // "New lease expiry"
    expect(renewed.json.expiresAt).toBeGreaterThanOrEqual(acquired.json.expiresAt);

    const listed = await curl(page.list, env);
    expect(listed.json.data.map((c: { key: string }) => c.key)).toEqual(['nightly-report']);

    const released = await curl(page.release('nightly-report', acquired.json.token), env);
    expect(released.status).toBe(200); // "Released"
    expect(released.json).toMatchObject({ released: true, key: 'nightly-report' });
    // "Release with token; allowed after scope cancellation (safe cleanup)": repeating it is 200 too.
    expect((await curl(page.release('nightly-report', acquired.json.token), env)).status).toBe(200);
  });

  it('its claim list holds at most 50 claims a page: more held is a nextCursor in the body and a Link rel="next" header, which lead to the rest', async () => {
    const spaceEnv = { ...env, RUNSTATE_SPACE_ID: randomUUID() };
    const keys = Array.from({ length: 52 }, (_, i) => `many/${String(i).padStart(2, '0')}`);
    for (const key of keys) {
      const created = await fetch(`${server.origin}/v1/spaces/${spaceEnv.RUNSTATE_SPACE_ID}/claims`, {
        method: 'POST',
        headers: { authorization: 'Bearer lh_test_admin', 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        body: JSON.stringify({ key, scopeId: RUN_ID, holder: 'worker-1', holderSession: 'sess-many' }),
      });
      expect(created.status).toBe(201);
    }
    const first = await curl(page.list, spaceEnv); // the page's curl as written: no limit
    expect(first.status).toBe(200);
    expect(first.json.data).toHaveLength(50);
    expect(first.json.nextCursor).toEqual(expect.any(String));
    const link = /^<(\?[^>]+)>; rel="next"$/.exec(first.headers.link ?? '');
    expect(link, `Link: ${first.headers.link}`).not.toBeNull();
    const next = await curl(`curl -X GET "$RUNSTATE_BASE_URL/v1/spaces/$RUNSTATE_SPACE_ID/claims${link![1]}" \\
  -H "Authorization: Bearer $RUNSTATE_API_KEY"`, spaceEnv);
    expect(next.json.data.map((c: { key: string }) => c.key)).toEqual(keys.slice(50));
    expect([next.json.nextCursor, next.headers.link]).toEqual([null, undefined]);
  });

  it('takes a key holding "/" when the reader percent-encodes it in the path', async () => {
    const acquired = await curl(page.acquire('reports/2026-11'), env);
    expect(acquired.status).toBe(201);
    const holder = await curl(page.holder('reports%2F2026-11'), env);
    expect([holder.status, holder.json.key]).toEqual([200, 'reports/2026-11']);
    expect((await curl(page.release('reports%2F2026-11', acquired.json.token), env)).status).toBe(200);
  });

  it('answers its 409s and 404s in the envelope the page documents: error.code, error.message, error.requestId', async () => {
    const first = await curl(page.acquire('contended', 'worker-1', 'sess-1'), env);
    expect(first.status).toBe(201);
    const held = await curl(page.acquire('contended', 'worker-2', 'sess-2'), env);
    expect(held.status).toBe(409);
    expect(pageError(held).code).toBe('claim_held');

    const wrongToken = await curl(page.renew('contended', 'lht_not-the-token'), env);
    expect(wrongToken.status).toBe(409);
    expect(pageError(wrongToken).code).toBe('claim_not_held');

    const free = await curl(page.holder('nobody-holds-this'), env);
    expect(free.status).toBe(404);
    expect(pageError(free).code).toBe('claim_not_found');

    // The same body serves the canonical reader too.
    expect(held.json).toMatchObject({ type: 'conflict_error', code: 'claim_held', request_id: held.headers['request-id'] });
    expect((await curl(page.release('contended', first.json.token), env)).status).toBe(200);
  });
});
