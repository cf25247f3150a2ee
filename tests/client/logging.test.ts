// What `logger: console` shows an operator (issue 15 item 6): retries (info), give-ups and lost
// leases (warn); never a line per attempt at the default level, and an expected answer —
// tryAcquire() finding the key held — is no failure at any level.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, uuid, type Harness } from './harness.js';

type Line = { level: string; message: string };

function recorder(): { lines: Line[]; logger: Record<'debug' | 'info' | 'warn' | 'error', (message: string) => void> } {
  const lines: Line[] = [];
  const at = (level: string) => (message: string) => void lines.push({ level, message });
  return { lines, logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') } };
}

let h: Harness;
beforeEach(async () => {
  h = await startHarness('fetch');
});
afterEach(() => h.close());

describe('logging', () => {
  it('by default (logLevel info) a successful call writes nothing, and tryAcquire() finding the key held is no failure', async () => {
    const { lines, logger } = recorder();
    const lh = h.client({ logger });
    const space = uuid();
    const holder = await lh.space(space).run(uuid(), { holder: 'a' }).claim('k').acquire();
    expect(await lh.space(space).run(uuid(), { holder: 'b' }).claim('k').tryAcquire()).toBeNull();
    await holder.release();
    expect(lines).toEqual([]);
  });

  it('at debug every attempt is there, and the held key is an answer, not "failed"', async () => {
    const { lines, logger } = recorder();
    const lh = h.client({ logger, logLevel: 'debug' });
    const space = uuid();
    await lh.space(space).run(uuid(), { holder: 'a' }).claim('k').acquire();
    await lh.space(space).run(uuid(), { holder: 'b' }).claim('k').tryAcquire();
    expect(lines.filter((line) => /attempt 1$/.test(line.message)).length).toBeGreaterThanOrEqual(2);
    expect(lines.some((line) => line.message.includes('answered 409 claim_held (not retried)'))).toBe(true);
    expect(lines.some((line) => /failed/i.test(line.message))).toBe(false);
    expect(lines.every((line) => line.level === 'debug')).toBe(true);
  });

  it('a retry is info, giving up after the retries is a warning', async () => {
    const { lines, logger } = recorder();
    const lh = h.client({ logger, maxRetries: 1 });
    h.server.control.injectFault({ operationId: 'createTask', status: 503, times: 2, retryAfterSeconds: 1 });
    const done = lh.tasks.create({ title: 'never' }).catch((error: unknown) => error);
    await expect(done).resolves.toMatchObject({ status: 503 });
    expect(lines).toEqual([
      { level: 'info', message: expect.stringMatching(/^Retrying POST \/v1\/tasks in 1000 ms after 503 \w+ \(attempt 2 of 2\)\.$/) },
      { level: 'warn', message: expect.stringMatching(/^Gave up on POST \/v1\/tasks after 2 attempts \(retries exhausted\): 503/) },
    ]);
  }, 10_000);

  it('a lost lease is a warning naming its kind and reason; logLevel warn drops the info lines', async () => {
    const { lines, logger } = recorder();
    const lh = h.client({ logger, logLevel: 'warn' });
    const lease = await lh.space(uuid()).run(uuid(), { holder: 'a' }).claim('k').acquire();
    h.server.control.loseLease(lease.claimId);
    await lh.heartbeat({ ttl: 30 });
    expect(lease.status).toBe('lost');
    expect(lines).toContainEqual({ level: 'warn', message: 'Lease lost; its signal is aborted.' });
    expect(lines.every((line) => line.level === 'warn' || line.level === 'error')).toBe(true);
  });
});
