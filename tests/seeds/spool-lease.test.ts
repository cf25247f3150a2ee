/**
 * `spool-lease-renew.txt`, as its reader uses it: the page's `curl -si` sample with
 * `$SPOOLER_API` set to one default server's `/v1` base and `$SPOOLER_KEY` to a demo key, the
 * `<spool>` and `<lease>` placeholders filled from a receive; then the page's statuses, read as
 * the page says — by the body's *kind*, and by the `Retry-After`-free body.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WHOLE_SECONDS_UTC, curl, SEED_SERVER_START_MS, startSeedServer, type SeedServer } from './support/seed-server.js';

let server: SeedServer;
let env: Record<string, string>;
beforeAll(async () => {
  server = await startSeedServer();
  env = { SPOOLER_API: `${server.origin}/v1`, SPOOLER_KEY: 'lh_test_admin' };
}, SEED_SERVER_START_MS);
afterAll(() => server?.stop());

const page = (spool: string, lease: string) => `curl -si -X POST "$SPOOLER_API/spools/${spool}/renew" \\
  -H "Authorization: Bearer $SPOOLER_KEY" \\
  -H "Spooler-Lease: ${lease}"`;

/** A spool with one queue and one received message (what the reader did before renewing). */
async function received(leaseTimeoutSeconds: number | null): Promise<{ spool: string; lease: string; handle: string }> {
  const spool = `billing-${randomUUID().slice(0, 8)}`;
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${server.origin}/v1${path}`, {
      method,
      headers: { authorization: 'Bearer lh_test_admin', 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect(response.status, `${method} ${path}`).toBeLessThan(300);
    return response;
  };
  await call('POST', '/spools', { name: spool });
  await call('PUT', `/spools/${spool}/queues/invoices`, { leaseTimeoutSeconds });
  await call('POST', `/spools/${spool}/queues/invoices/messages`, { body: { invoiceId: 'inv_1042' } });
  const receive = await call('POST', `/spools/${spool}/queues/invoices/receive`);
  const message = (await receive.json()) as { handle: string };
  return { spool, lease: receive.headers.get('spooler-lease') as string, handle: message.handle };
}

describe('the spool page against one default server', () => {
  it('renews with its curl -si sample: 204 and the new absolute expiry in Spooler-Lease-Expires-At', async () => {
    const { spool, lease } = await received(60);
    const answer = await curl(page(spool, lease), env);
    expect(answer.status).toBe(204);
    expect(answer.body).toBe('');
    expect(answer.headers['spooler-lease-expires-at']).toMatch(WHOLE_SECONDS_UTC);
    const expiry = Date.parse(answer.headers['spooler-lease-expires-at'] as string);
    expect(expiry).toBeGreaterThan(Date.now() + 55_000);
    expect(expiry).toBeLessThanOrEqual(Date.now() + 60_000);
  });

  it('omits Spooler-Lease-Expires-At on a queue with no lease timeout: the lease never expires', async () => {
    const { spool, lease } = await received(null);
    const answer = await curl(page(spool, lease), env);
    expect(answer.status).toBe(204);
    expect(answer.headers).not.toHaveProperty('spooler-lease-expires-at');
  });

  it('names the problem in the body\'s kind for 400, 404 and 410; 401 for a missing key', async () => {
    const { spool, lease, handle } = await received(60);
    const kindOf = async (command: string, extra: Record<string, string> = {}) => {
      const answer = await curl(command, { ...env, ...extra });
      expect(answer.json.request_id).toBe(answer.headers['request-id']);
      expect(JSON.stringify(answer.json)).not.toMatch(/retry/i);
      return `${answer.status} ${answer.json.kind ?? '(no kind)'}`;
    };
    expect(await kindOf(page(spool, 'short'))).toBe('400 invalid_token'); // "the kind names the problem"
    expect(await kindOf(page('no-such-spool', lease))).toBe('404 spool_not_found'); // "the kind says which"
    expect(await kindOf(page(spool, lease), { SPOOLER_KEY: 'lh_unknown' })).toBe('401 invalid_api_key');
    // "A message discarded by handle while leased makes the renew answer 410 stale_token."
    const discarded = await fetch(`${server.origin}/v1/spools/${spool}/messages/${handle}`, { method: 'DELETE', headers: { authorization: 'Bearer lh_test_admin' } });
    expect(discarded.status).toBe(204);
    expect(await kindOf(page(spool, lease))).toBe('410 stale_token');
  });
});
