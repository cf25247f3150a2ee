/**
 * `tasks.work` when the complete reaches the server but its answer is lost in an outage, and the
 * next heartbeat reports the claim lost — ended by that very complete. The loop replays the
 * complete's key once: it landed, so the work is done (not a `LeaseLostError`), exactly once.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { LeaseholdOptions } from '../../packages/client/src/index.js';
import { advance, FAKE_TIMERS, startHarness, type Harness } from './harness.js';

describe('tasks.work: a complete whose answer was lost while a heartbeat saw the claim end', () => {
  let h: Harness;

  beforeEach(async () => {
    h = await startHarness('fetch');
    vi.useFakeTimers(FAKE_TIMERS);
  });

  afterEach(async () => {
    vi.useRealTimers();
    await h.close();
  });

  it('counts as done: the replay of its key answers what the first did', async () => {
    let completes = 0;
    let dark = false;
    const fetch: LeaseholdOptions['fetch'] = async (input, init) => {
      const path = new URL(input).pathname;
      const request = new Request(input, init);
      if (path.endsWith('/complete')) {
        completes++;
        if (completes === 1) {
          await h.server.handle(request); // it lands; its answer does not arrive
          dark = true;
          throw new TypeError('fetch failed', { cause: new Error('socket hang up') });
        }
        if (dark) throw new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED') });
      }
      const response = await h.server.handle(request);
      if (path.endsWith('/claims/heartbeat')) dark = false; // the outage ends with the heartbeat that saw the claim end
      return response;
    };
    const lh = h.client({ fetch, baseUrl: 'http://leasehold.test' });
    const { task } = await lh.tasks.create({ title: 'completed in the dark' });
    let lease: { readonly error: { readonly reason: string } | undefined } | undefined;
    const working = lh.tasks.work(task.id, (ctx) => {
      lease = ctx.lease;
      return 'built';
    });
    await advance(h, 400_000, 10_000); // past the claim's renewal (a third of 15 minutes), short of its end
    expect(await working).toBe('built');
    const { task: done } = await lh.tasks.get(task.id);
    expect([done.status, done.result, done.attempts]).toEqual(['Done', 'built', 1]);
    expect(completes).toBeGreaterThanOrEqual(3); // the first, at least one refused in the dark, the replay
    expect(lease?.error?.reason).toBe('lost'); // the heartbeat did see the claim end
  });
});
