/**
 * Long-running loops ride through an outage shorter than a lease: `claim.run`, a waiting
 * `acquire` and `tasks.work` go on once the server answers again (with the default
 * `maxRetries: 2` a 10 s outage used to reject them within about a second). The network is cut
 * (`harness.down`: `fetch` rejects, or connections are dropped) for a stretch of fake time on
 * both clocks; held leases stay held (renewal is governed by the local deadline), and only the
 * lease deadline, the caller's signal or a definitive error ends a loop.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AbortError, LeaseLostError, type Leasehold } from '../../packages/client/src/index.js';
import { advance, FAKE_TIMERS, MODES, startHarness, uuid, type Harness } from './harness.js';

describe.each(MODES)('loops ride through an outage (%s)', (mode) => {
  let h: Harness;
  let lh: Leasehold;

  beforeEach(async () => {
    h = await startHarness(mode);
    vi.useFakeTimers(FAKE_TIMERS);
    lh = h.client();
  });

  afterEach(async () => {
    vi.useRealTimers();
    await h.close();
  });

  /** Cuts the network for `ms` of fake time (both clocks move), then restores it. */
  const outage = async (ms: number): Promise<void> => {
    h.down = true;
    await advance(h, ms, 500);
    h.down = false;
  };
  const claim = (client: Leasehold, key = 'nightly') => client.space(uuid()).run(uuid(), { holder: 'w' }).claim(key);

  it('claim.run started during a 10 s outage acquires once the server is back, and runs', async () => {
    h.down = true;
    let settled = false;
    const running = claim(lh).run((lease) => lease.fence).finally(() => (settled = true));
    await advance(h, 10_000, 500);
    expect(settled).toBe(false); // still trying, not rejected
    h.down = false;
    await advance(h, 30_000, 1_000); // the next try (at most 30 s away) goes through
    expect(typeof (await running)).toBe('number');
  });

  it('a held lease survives a 10 s outage while claim.run works, and is released after', async () => {
    const handle = claim(lh);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let held: { status: string } | undefined;
    const running = handle.run(async (lease) => {
      held = lease;
      await gate;
      return lease.status;
    });
    await advance(h, 1_000);
    expect(held?.status).toBe('held');
    await outage(10_000);
    await advance(h, 11_000); // the heartbeats resume before the 30 s lease's deadline
    expect(held?.status).toBe('held');
    release();
    expect(await running).toBe('held');
  });

  it('tasks.work: an outage while fn runs and while it completes ends with the task Done', async () => {
    const { task } = await lh.tasks.create({ title: 'ride it out' });
    let finish!: () => void;
    const gate = new Promise<void>((resolve) => (finish = resolve));
    let settled = false;
    const working = lh.tasks.work(task.id, async () => {
      await gate;
      return 'done';
    }).finally(() => (settled = true));
    await advance(h, 1_000);
    h.down = true;
    finish(); // fn returns during the outage: the complete has to wait for the server
    await advance(h, 12_000, 500);
    expect(settled).toBe(false);
    h.down = false;
    await advance(h, 30_000, 1_000);
    expect(await working).toBe('done');
    expect((await lh.tasks.get(task.id)).task.status).toBe('Done');
    // The complete was sent under one key however many times it was tried.
    const keys = new Set(h.requests(`/v1/tasks/${task.id}/complete`, 'POST').map((r) => r.headers['idempotency-key']));
    expect(keys.size).toBe(1);
  });

  it('tasks.work started during an outage claims once the server is back', async () => {
    const { task } = await lh.tasks.create({ title: 'start in the dark' });
    h.down = true;
    const working = lh.tasks.work(task.id, (ctx) => ctx.lease.fence);
    await advance(h, 10_000, 500);
    h.down = false;
    await advance(h, 30_000, 1_000);
    expect(typeof (await working)).toBe('number');
    expect((await lh.tasks.get(task.id)).task.status).toBe('Done');
  });

  it('the caller’s signal ends a loop waiting out an outage (AbortError)', async () => {
    h.down = true;
    const stop = new AbortController();
    const running = claim(lh).run(() => 1, { signal: stop.signal });
    running.catch(() => {});
    await advance(h, 5_000, 500);
    stop.abort();
    await expect(running).rejects.toBeInstanceOf(AbortError);
    h.down = false;
    await advance(h, 6_000, 1_000); // the abandoned request's grace (a dropped HTTP connection never answers)
  });

  it('an outage longer than the lease ends the work with LeaseLostError(deadline) — nothing else does', async () => {
    const lease = await claim(lh).acquire();
    const { task } = await lh.tasks.create({ title: 'too long' });
    void lease.release();
    let finish!: () => void;
    const gate = new Promise<void>((resolve) => (finish = resolve));
    const working = lh.tasks.work(task.id, async () => {
      await gate;
    });
    working.catch(() => {});
    await advance(h, 1_000);
    h.down = true;
    finish();
    await advance(h, 16 * 60_000, 30_000); // past the 15-minute claim
    const error = await working.then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(LeaseLostError);
    expect((error as LeaseLostError).reason).toBe('deadline');
    h.down = false;
  });
});
