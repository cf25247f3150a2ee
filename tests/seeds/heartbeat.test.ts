/**
 * `heartbeat-all-leases.txt`, as its reader uses it: the page's three request snippets — curl,
 * JavaScript `fetch` (run by Node in a child process) and Python `requests` (run for real by
 * Debian's /usr/bin/python3) — with the page's host replaced by one server started with its
 * defaults (the page's `/api/v1/...` path unchanged), the page's example body as written, and its
 * `"claimId": "string"` placeholder filled with a real claim. The page's snippets send no
 * credential, so they are run as written first (401, read through the canonical envelope's
 * `code`) and then as any reader must run them, with `Authorization` added.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { curl, run, SEED_SERVER_START_MS, startSeedServer, type SeedServer } from './support/seed-server.js';

const PYTHON = '/usr/bin/python3';
let server: SeedServer;
let dir: string;
beforeAll(async () => {
  server = await startSeedServer();
  dir = mkdtempSync(join(tmpdir(), 'leasehold-seed-heartbeat-'));
}, SEED_SERVER_START_MS);
afterAll(async () => {
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The page's URL with its host replaced: the path `/api/v1/claims/heartbeat` stays. */
const url = () => `${server.origin}/api/v1/claims/heartbeat`;

/** A claim to heartbeat, taken through the API (the page assumes its reader holds leases). */
async function acquire(key: string): Promise<{ claimId: string; expiresAt: number }> {
  const response = await fetch(`${server.origin}/v1/spaces/${randomUUID()}/claims`, {
    method: 'POST',
    headers: { authorization: 'Bearer lh_test_admin', 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    body: JSON.stringify({ key, scopeId: randomUUID(), holder: 'hb-reader', holderSession: 'sess-hb', leaseSeconds: 120 }),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as { claimId: string; expiresAt: number };
}

/** The page's curl snippet, with `headers` added after its own. */
const curlSnippet = (body: string, extra = '') => `curl -X POST "${url()}" \\
  -H "Content-Type: application/json" \\${extra}
  -d '${body}'`;

/** The page's example body, its placeholder claim id replaced by `claimId`. */
const pageBody = (claimId: string) => `{
  "claimId": "${claimId}",
  "ttl": 0,
  "details": {}
}`;

/** The page's `fetch` snippet as a module Node runs; it prints status and body. */
const fetchSnippet = (claimId: string, authorization?: string) => `
const response = await fetch(${JSON.stringify(url())}, {
  method: "POST",
  headers: {
    "Content-Type": "application/json"${authorization ? `,\n    "Authorization": ${JSON.stringify(authorization)}` : ''}
  },
  body: JSON.stringify({
  "claimId": ${JSON.stringify(claimId)},
  "ttl": 0,
  "details": {}
})
});
console.log(JSON.stringify({ status: response.status, body: await response.json() }));
`;

/** The page's Python snippet; it prints status and body. */
const pythonSnippet = (claimId: string, authorization?: string) => `
import json
import requests

response = requests.post(
    ${JSON.stringify(url())},
    headers={
        "Content-Type": "application/json"${authorization ? `,\n        "Authorization": ${JSON.stringify(authorization)}` : ''}
    },
    json={
  "claimId": ${JSON.stringify(claimId)},
  "ttl": 0,
  "details": {}
},
)
print(json.dumps({"status": response.status_code, "body": response.json()}))
`;

async function runNode(source: string): Promise<{ status: number; body: any }> {
  const file = join(dir, `fetch-${randomUUID()}.mjs`);
  writeFileSync(file, source);
  const ran = await run(process.execPath, [file]);
  expect(ran.code, ran.stderr).toBe(0);
  return JSON.parse(ran.stdout) as { status: number; body: any };
}

async function runPython(source: string): Promise<{ status: number; body: any }> {
  const file = join(dir, `requests-${randomUUID()}.py`);
  writeFileSync(file, source);
  const ran = await run(PYTHON, [file]);
  expect(ran.code, `${PYTHON} ${file}: ${ran.stderr} (scripts/install-seed-tools.sh installs python3-requests)`).toBe(0);
  return JSON.parse(ran.stdout) as { status: number; body: any };
}

const AUTH = 'Bearer lh_test_admin';

describe('the heartbeat page against one default server', () => {
  it('curl: as written (no credential) 401 read through `code`; the example body as is 404; with a held claim one ack that extends nothing away', async () => {
    const claim = await acquire('hb/curl');
    const asWritten = await curl(curlSnippet(pageBody(claim.claimId)));
    expect(asWritten.status).toBe(401);
    expect(asWritten.json).toMatchObject({ type: 'authentication_error', code: 'missing_api_key', request_id: asWritten.headers['request-id'] });
    const auth = `\n  -H "Authorization: ${AUTH}" \\`;
    const placeholder = await curl(curlSnippet(pageBody('string'), auth));
    expect([placeholder.status, placeholder.json.code, placeholder.json.param]).toEqual([404, 'claim_not_found', 'claimId']);
    const beat = await curl(curlSnippet(pageBody(claim.claimId), auth));
    expect(beat.status).toBe(200); // "One ack per lease extended."
    expect(beat.json).toEqual({ object: 'list', results: [{ claimId: claim.claimId, status: 'held', expiresAt: claim.expiresAt, queueDepth: 0 }] });
  });

  it('fetch: the same answers, read the same way', async () => {
    const claim = await acquire('hb/fetch');
    const asWritten = await runNode(fetchSnippet(claim.claimId));
    expect([asWritten.status, asWritten.body.code]).toEqual([401, 'missing_api_key']);
    const beat = await runNode(fetchSnippet(claim.claimId, AUTH));
    expect(beat).toEqual({ status: 200, body: { object: 'list', results: [{ claimId: claim.claimId, status: 'held', expiresAt: claim.expiresAt, queueDepth: 0 }] } });
  });

  it('Python requests (run by /usr/bin/python3): the same answers, read the same way', async () => {
    const claim = await acquire('hb/python');
    const asWritten = await runPython(pythonSnippet(claim.claimId));
    expect([asWritten.status, asWritten.body.code, asWritten.body.type]).toEqual([401, 'missing_api_key', 'authentication_error']);
    const placeholder = await runPython(pythonSnippet('string', AUTH));
    expect([placeholder.status, placeholder.body.code]).toEqual([404, 'claim_not_found']);
    const beat = await runPython(pythonSnippet(claim.claimId, AUTH));
    expect(beat).toEqual({ status: 200, body: { object: 'list', results: [{ claimId: claim.claimId, status: 'held', expiresAt: claim.expiresAt, queueDepth: 0 }] } });
  });

  it('ttl as the page types it (number | string | any, not required): absent, null and negative renew; what carries no duration is a 400 that says so', async () => {
    const claim = await acquire('hb/ttl');
    const auth = `\n  -H "Authorization: ${AUTH}" \\`;
    const held = { claimId: claim.claimId, status: 'held', expiresAt: claim.expiresAt, queueDepth: 0 };
    // Absent or null: each lease for its own term (120 s here), never moved earlier.
    const absent = await curl(curlSnippet(`{"claimId": "${claim.claimId}", "details": {}}`, auth));
    expect([absent.status, absent.json.results.length]).toEqual([200, 1]);
    expect(absent.json.results[0].expiresAt).toBeGreaterThanOrEqual(claim.expiresAt);
    const nulled = await runPython(pythonSnippet(claim.claimId, AUTH).replace('"ttl": 0', '"ttl": None'));
    expect([nulled.status, nulled.body.results[0].claimId]).toEqual([200, claim.claimId]);
    const negative = await runNode(fetchSnippet(claim.claimId, AUTH).replace('"ttl": 0', '"ttl": -5'));
    expect(negative.status).toBe(200);
    expect(negative.body.results[0]).toMatchObject({ ...held, expiresAt: expect.any(Number) });
    for (const ttl of ['"soon"', 'true', '{}']) {
      const bad = await curl(curlSnippet(pageBody(claim.claimId).replace('"ttl": 0', `"ttl": ${ttl}`), auth));
      expect([bad.status, bad.json.code, bad.json.param], ttl).toEqual([400, 'invalid_ttl', 'ttl']);
      expect(bad.json.message).toMatch(/leave it out to renew each lease for its own term/);
    }
  });

  it('claimId "" is no filter; details over 16 KiB refuses the batch and says nothing was renewed', async () => {
    const claim = await acquire('hb/empty-id');
    const all = await runPython(pythonSnippet('', AUTH));
    expect(all.status).toBe(200);
    expect(all.body.results.map((r: { claimId: string }) => r.claimId)).toContain(claim.claimId);
    const big = await runPython(pythonSnippet(claim.claimId, AUTH).replace('"details": {}', `"details": {"log": "${'x'.repeat(17 * 1024)}"}`));
    expect([big.status, big.body.code, big.body.param]).toEqual([400, 'invalid_request', 'details']);
    expect(big.body.message).toMatch(/at most 16 KiB.*nothing was renewed/);
  });

  it('a credential in another scheme (Basic) is 401 invalid_api_key, and the message names the Bearer form', async () => {
    const claim = await acquire('hb/basic');
    const basic = await runNode(fetchSnippet(claim.claimId, 'Basic bGhfdGVzdF9hZG1pbjo='));
    expect([basic.status, basic.body.type, basic.body.code]).toEqual([401, 'authentication_error', 'invalid_api_key']);
    expect(basic.body.message).toMatch(/Bearer <api key>/);
  });

  it("every error the page lists comes in the page's envelope: type, code, message, request_id", async () => {
    const claim = await acquire('hb/errors');
    const bad = await runPython(pythonSnippet(claim.claimId, AUTH).replace('"ttl": 0', '"ttl": "soon"'));
    expect(bad.status).toBe(400); // "The request did not satisfy the published contract."
    expect(bad.body).toMatchObject({ type: 'invalid_request_error', code: 'invalid_ttl', param: 'ttl', message: expect.any(String), request_id: expect.stringMatching(/^req_/) });
    const forbidden = await runPython(pythonSnippet(claim.claimId, 'Bearer lh_test_reader'));
    expect([forbidden.status, forbidden.body.type, forbidden.body.code]).toEqual([403, 'permission_error', 'permission_denied']);
  });
});
