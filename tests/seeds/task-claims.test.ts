/**
 * `task-claims.txt`, as its reader uses it: the page's curl commands with `https://cyj.example`
 * replaced by one server started with its defaults (the page's `/api/v1/tasks/42/...` paths
 * unchanged) and `$CYJ_API_TOKEN` set — including its fixed `example-…-001` Idempotency-Keys
 * and its literal `If-Match: "task-42-plan-7"` before the reader fills in the real ETag — then the
 * page's C# flow translated request for request (what `HttpClient` with `BaseAddress` sends:
 * `Authorization: Bearer`, `TryAddWithoutValidation("If-Match", etag)`, `Guid.ToString("N")` keys,
 * `JsonContent.Create(...)` bodies as `application/json; charset=utf-8`, `EnsureSuccessStatusCode`),
 * and the page's token rules, read through `code`.
 */
import { randomUUID } from 'node:crypto';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WHOLE_SECONDS_UTC, curl, SEED_SERVER_START_MS, startSeedServer, type SeedServer } from './support/seed-server.js';

let server: SeedServer;
let env: Record<string, string>;
beforeAll(async () => {
  server = await startSeedServer();
  env = { CYJ_API_TOKEN: 'lh_test_admin' };
  // The reader owns task 42: the account's tasks 1–42 exist.
  for (let i = 1; i <= 42; i++) {
    const created = await fetch(`${server.origin}/api/v1/tasks`, {
      method: 'POST',
      headers: { authorization: 'Bearer lh_test_admin', 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body: JSON.stringify({ title: `task ${i}` }),
    });
    expect(created.status).toBe(201);
  }
}, SEED_SERVER_START_MS);
afterAll(() => server?.stop());

const base = () => server.origin; // replaces https://cyj.example

const page = {
  acquire: (ifMatch: string) => `curl -i -X POST '${base()}/api/v1/tasks/42/claim' \\
  -H "Authorization: Bearer $CYJ_API_TOKEN" \\
  -H 'If-Match: ${ifMatch}' \\
  -H 'Idempotency-Key: example-acquire-001' \\
  -H 'Content-Type: application/json' \\
  --data-raw '{}'`,
  renew: (ifMatch: string, token: string) => `curl -i -X POST '${base()}/api/v1/tasks/42/claim/renew' \\
  -H "Authorization: Bearer $CYJ_API_TOKEN" \\
  -H 'If-Match: ${ifMatch}' \\
  -H 'Idempotency-Key: example-renew-001' \\
  -H 'Content-Type: application/json' \\
  --data-raw '{"token":"${token}"}'`,
  release: (ifMatch: string, token: string) => `curl -i -X POST '${base()}/api/v1/tasks/42/claim/release' \\
  -H "Authorization: Bearer $CYJ_API_TOKEN" \\
  -H 'If-Match: ${ifMatch}' \\
  -H 'Idempotency-Key: example-release-request-001' \\
  -H 'Content-Type: application/json' \\
  --data-raw '{"token":"${token}"}'`,
};

async function etagOf42(): Promise<string> {
  const read = await fetch(`${base()}/api/v1/tasks/42`, { headers: { authorization: 'Bearer lh_test_admin' } });
  await read.arrayBuffer();
  return read.headers.get('etag') as string;
}

/** What .NET's `HttpClient` does: relative URIs against `BaseAddress`, default headers, one call. */
function httpClient(baseAddress: string, token: string) {
  const send = async (method: string, relative: string, headers: Record<string, string> = {}, json?: unknown) => {
    const response = await request(new URL(relative, baseAddress), {
      method: method as 'GET',
      headers: {
        authorization: `Bearer ${token}`,
        ...headers,
        ...(json === undefined ? (method === 'POST' ? { 'content-length': '0' } : {}) : { 'content-type': 'application/json; charset=utf-8' }),
      },
      body: json === undefined ? undefined : JSON.stringify(json),
    });
    const text = await response.body.text();
    const result = { status: response.statusCode, etag: response.headers.etag as string | undefined, text, json: text === '' ? undefined : JSON.parse(text) };
    return {
      ...result,
      /** `EnsureSuccessStatusCode()`: a non-2xx throws, carrying the body for the handler to read. */
      ensureSuccess() {
        if (result.status < 200 || result.status > 299) throw Object.assign(new Error(`HTTP ${result.status}`), { body: result.json });
        return result;
      },
    };
  };
  return { send };
}

describe('the task-claims page against one default server', () => {
  it('its curl commands as written: one If-Match (the ETag read before the claim) claims, renews and releases, with the same fixed keys', async () => {
    const stale = await curl(page.acquire('"task-42-plan-7"'), env);
    expect([stale.status, stale.json.code, stale.json.type]).toEqual([412, 'etag_mismatch', 'precondition_error']);
    expect(stale.json.message).toMatch(/current ETag/);
    // "Required source freshness is checked before acquisition; failure creates no claim" — and
    // nothing is stored under example-acquire-001, so the reader's retry with the real ETag claims.
    const etag = await etagOf42();
    const acquired = await curl(page.acquire(etag), env);
    expect(acquired.status, acquired.body).toBe(200);
    expect(acquired.headers['idempotent-replayed']).toBeUndefined();
    expect(acquired.json.token).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(acquired.json.expiresUtc).toMatch(WHOLE_SECONDS_UTC); // "2026-10-19T09:15:00Z"
    // "Claiming neither starts the task nor completes work": the task's ETag stays what it was.
    expect(acquired.headers.etag, 'a claim does not change the ETag').toBe(etag);
    expect(await etagOf42()).toBe(etag);

    // The page's renew and release send the acquire's If-Match, as written.
    const renewed = await curl(page.renew(etag, acquired.json.token), env);
    expect(renewed.status, renewed.body).toBe(200); // "renews a matching unexpired lease for 15 minutes"
    expect(renewed.json.expiresUtc).toMatch(WHOLE_SECONDS_UTC);
    expect(renewed.json).not.toHaveProperty('token');
    expect(renewed.headers.etag, 'renew does not change the ETag').toBe(etag);

    const released = await curl(page.release(etag, acquired.json.token), env);
    expect(released.status, released.body).toBe(200);
    expect(released.json).toMatchObject({ released: true, releasedUtc: expect.stringMatching(WHOLE_SECONDS_UTC) });
    expect(released.json).not.toHaveProperty('token'); // "Release returns no token."
    expect(released.headers.etag, 'release does not change the ETag').toBe(etag);
    expect(await etagOf42()).toBe(etag);
  });

  it('its C# flow, request for request: read, claim, check the expiry, re-read, note, re-read, release', async () => {
    const http = httpClient(`${base()}/`, 'lh_test_admin'); // BaseAddress = new Uri("https://cyj.example/")
    const detail = (await http.send('GET', 'api/v1/tasks/42')).ensureSuccess();
    const etag = detail.etag ?? (() => { throw new Error('Task response has no ETag.'); })();
    const acquireKey = randomUUID().replace(/-/g, ''); // Guid.NewGuid().ToString("N")
    const acquired = (await http.send('POST', 'api/v1/tasks/42/claim', { 'If-Match': etag, 'Idempotency-Key': acquireKey })).ensureSuccess();
    const token = acquired.json.token as string; // GetProperty("token").GetGuid()
    const expiry = Date.parse(acquired.json.expiresUtc as string); // GetDateTimeOffset()
    expect(expiry > Date.now() + 30_000, 'the returned UTC expiry is still usable').toBe(true);

    const fresh = (await http.send('GET', 'api/v1/tasks/42')).ensureSuccess();
    expect(fresh.etag, 'the claim kept the ETag; the re-read serves as well').toBe(etag);
    const noteKey = randomUUID().replace(/-/g, '');
    const saved = (await http.send('POST', 'api/v1/tasks/42/notes', { 'If-Match': fresh.etag as string, 'Idempotency-Key': noteKey, 'X-Task-Claim': token }, {
      text: 'Draft prepared. Waiting for approval.',
    })).ensureSuccess();
    expect(saved.json).toMatchObject({ text: 'Draft prepared. Waiting for approval.', claimId: acquired.json.claimId });

    const latest = (await http.send('GET', 'api/v1/tasks/42')).ensureSuccess();
    expect(latest.etag, 'the note changed the ETag: the page re-reads after each successful write').not.toBe(fresh.etag);
    expect(latest.json.notes.at(-1).text).toBe('Draft prepared. Waiting for approval.');
    const releaseKey = randomUUID().replace(/-/g, '');
    const released = (await http.send('POST', 'api/v1/tasks/42/claim/release', { 'If-Match': latest.etag as string, 'Idempotency-Key': releaseKey }, { token })).ensureSuccess();
    expect(released.json).toMatchObject({ released: true });
    expect(released.etag, 'the release kept the ETag').toBe(latest.etag);
    expect((await http.send('GET', 'api/v1/tasks/42')).ensureSuccess().json.claim).toBeNull();
  });

  it("answers the page's token rules with the codes a handler reads: 400 for missing/zero/malformed, 409 for wrong or expired", async () => {
    const http = httpClient(`${base()}/`, 'lh_test_admin');
    const etag = (await http.send('GET', 'api/v1/tasks/41')).ensureSuccess().etag as string;
    const claimed = (await http.send('POST', 'api/v1/tasks/41/claim', { 'If-Match': etag, 'Idempotency-Key': randomUUID().replace(/-/g, '') })).ensureSuccess();
    const renew = (token: unknown) =>
      http.send('POST', 'api/v1/tasks/41/claim/renew', { 'If-Match': claimed.etag as string, 'Idempotency-Key': randomUUID().replace(/-/g, '') }, token === undefined ? {} : { token });
    const codeOf = async (token: unknown) => {
      const answer = await renew(token);
      try {
        answer.ensureSuccess();
        return `${answer.status}`;
      } catch (error) {
        return `${answer.status} ${(error as { body: { code: string } }).body.code}`;
      }
    };
    expect(await codeOf(undefined)).toBe('400 invalid_token');
    expect(await codeOf(null)).toBe('400 invalid_token');
    expect(await codeOf('')).toBe('400 invalid_token');
    expect(await codeOf('00000000-0000-0000-0000-000000000000')).toBe('400 invalid_token');
    expect(await codeOf('not-a-guid')).toBe('400 invalid_token');
    expect(await codeOf('22222222-2222-4222-8222-222222222222')).toBe('409 claim_not_held');
    expect(await codeOf(claimed.json.token)).toBe('200');
  });
});
