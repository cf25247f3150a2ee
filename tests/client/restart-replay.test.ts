/**
 * A worker restarted with the README's crash-recovery setup — the same `FileIdempotencyStore`
 * directory, the same `session`, the same `operationId` — replays its acquire. Restarted while
 * the lease still runs, it gets the lease back (same claim, same fence) and keeps it; restarted
 * after the lease ended (expired, or released since), its first call must not fail: the replay
 * is dropped and the call acquires afresh (a new claim, a larger fence). For space claims, task
 * claims (`tasks.work`) and queue receives. A restart = the first client closed without releasing
 * (a crash keeps its keys) and a new client on the same directory; time moves on the reference
 * server's manual clock and the client's fake timers together.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FileIdempotencyStore, type Leasehold } from '../../packages/client/src/index.js';
import { advance, FAKE_TIMERS, MODES, startHarness, uuid, type Harness } from './harness.js';

describe.each(MODES)('a restarted worker replays its acquire (%s)', (mode) => {
  let h: Harness;
  let dir: string;
  const session = 'sess_restarted_worker';

  beforeEach(async () => {
    h = await startHarness(mode);
    vi.useFakeTimers(FAKE_TIMERS);
    dir = await mkdtemp(join(tmpdir(), 'leasehold-restart-'));
  });

  afterEach(async () => {
    vi.useRealTimers();
    await h.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** A worker process: a client with the shared store directory and session. */
  const worker = (): Leasehold => h.client({ session, idempotencyStore: new FileIdempotencyStore({ directory: dir, fsync: false }) });
  /** The "crash": the client stops without releasing anything or forgetting any key. */
  const crash = (lh: Leasehold) => lh.close({ releaseLeases: false });

  describe('space claims (claim.run)', () => {
    const spaceId = uuid();
    const runId = uuid();
    const claim = (lh: Leasehold) => lh.space(spaceId).run(runId, { holder: 'w' }).claim('nightly', { leaseSeconds: 10 });

    it('restarted after the lease expired: the first run() acquires afresh', async () => {
      const first = worker();
      const old = await claim(first).acquire({ operationId: 'nightly:claim' });
      await crash(first);
      await advance(h, 15_000);

      const second = worker();
      const seen = await claim(second).run((lease) => ({ fence: lease.fence, claimId: lease.claimId, replayed: lease.replayed }), { operationId: 'nightly:claim' });
      expect(seen.replayed).toBe(false);
      expect(seen.claimId).not.toBe(old.claimId);
      expect(seen.fence).toBeGreaterThan(old.fence!);
      // Two acquires under the first key (the original, its replay), then one under a new key.
      const keys = h.requests('/claims', 'POST').map((r) => r.headers['idempotency-key']);
      expect(keys).toHaveLength(3);
      expect(keys[1]).toBe(keys[0]);
      expect(keys[2]).not.toBe(keys[0]);
    });

    it('restarted after the lease was released (its key left behind): the first acquire() acquires afresh', async () => {
      const first = worker();
      const old = await claim(first).acquire({ operationId: 'nightly:claim' });
      // Released by the token behind the client's back: the stored key still names the old acquire.
      await h.client().space(spaceId).run(runId, { holder: 'w' }).claim('nightly').tryAcquire(); // (held: null)
      await h.server.handle(
        new Request(`http://leasehold.test/v1/spaces/${spaceId}/claims/nightly/release`, {
          method: 'POST',
          headers: { authorization: 'Bearer lh_test_admin', 'content-type': 'application/json', 'idempotency-key': uuid() },
          body: JSON.stringify({ token: old.token }),
        }),
      );
      await crash(first);
      await advance(h, 2_000);

      const second = worker();
      const lease = await claim(second).acquire({ operationId: 'nightly:claim' });
      expect(lease.status).toBe('held');
      expect(lease.replayed).toBe(false);
      expect(lease.fence).toBeGreaterThan(old.fence!);
      await lease.release();
    });

    it('restarted while the lease runs: the replay is the same lease, and it is kept', async () => {
      const first = worker();
      const old = await claim(first).acquire({ operationId: 'nightly:claim' });
      await crash(first);
      await advance(h, 3_000);

      const second = worker();
      const lease = await claim(second).acquire({ operationId: 'nightly:claim' });
      expect(lease.replayed).toBe(true);
      expect(lease.claimId).toBe(old.claimId);
      expect(lease.fence).toBe(old.fence);
      await advance(h, 20_000); // twice the lease: the heartbeat renews the replayed claim
      expect(lease.status).toBe('held');
      await lease.release();
    });
  });

  describe('task claims (tasks.work)', () => {
    it('restarted after the claim expired: the first work() claims afresh and completes', async () => {
      const first = worker();
      const { task, etag } = await first.tasks.create({ title: 'restart me' });
      const old = await first.tasks.claim(task.id, { etag, operationId: `task:${task.id}:claim` });
      await crash(first);
      await advance(h, 16 * 60_000, 60_000);

      const second = worker();
      const fence = await second.tasks.work(task.id, (ctx) => ctx.lease.fence);
      expect(fence).toBeGreaterThan(old.lease.fence);
      expect((await second.tasks.get(task.id)).task.status).toBe('Done');
    });

    it('restarted after the claim was released (its key left behind): the first work() claims afresh', async () => {
      const first = worker();
      const { task, etag } = await first.tasks.create({ title: 'released behind its back' });
      const old = await first.tasks.claim(task.id, { etag, operationId: `task:${task.id}:claim` });
      await h.client().tasks.releaseClaim(task.id, { etag: old.etag, token: old.lease.token });
      await crash(first);

      const second = worker();
      const fence = await second.tasks.work(task.id, (ctx) => ctx.lease.fence);
      expect(fence).toBeGreaterThan(old.lease.fence);
      expect((await second.tasks.get(task.id)).task.status).toBe('Done');
    });

    it('restarted while the claim runs: work() goes on under the replayed claim', async () => {
      const first = worker();
      const { task, etag } = await first.tasks.create({ title: 'resume me' });
      const old = await first.tasks.claim(task.id, { etag, operationId: `task:${task.id}:claim` });
      await crash(first);
      await advance(h, 60_000, 60_000);

      const second = worker();
      const seen = await second.tasks.work(task.id, (ctx) => ({ fence: ctx.lease.fence, claimId: ctx.lease.claimId }));
      expect(seen).toEqual({ fence: old.lease.fence, claimId: old.lease.claimId });
      expect((await second.tasks.get(task.id)).task.status).toBe('Done');
    });
  });

  describe('queue receives', () => {
    it('restarted after the lease expired: the first receive() leases the message again', async () => {
      const first = worker();
      const queue = (lh: Leasehold) => lh.spool('restart').queue('jobs');
      await first.spool('restart').create();
      await queue(first).put({ leaseTimeoutSeconds: 30 });
      const sent = await queue(first).send({ n: 1 });
      const old = await queue(first).receive({ operationId: 'jobs:receive' });
      expect(old?.message.id).toBe(sent.id);
      await crash(first);
      await advance(h, 40_000);

      const second = worker();
      const lease = await queue(second).receive({ operationId: 'jobs:receive' });
      expect(lease?.status).toBe('held');
      expect(lease?.message.id).toBe(sent.id);
      expect(lease?.claimId).not.toBe(old?.claimId);
      expect(lease?.message.deliveryCount).toBe(2);
      await lease?.ack();
      expect(await queue(second).receive()).toBeNull();
    });

    it('restarted while the lease runs: receive takes no Idempotency-Key (the spec), so the message comes back after its lease timeout', async () => {
      const first = worker();
      const queue = (lh: Leasehold) => lh.spool('restart').queue('jobs-2');
      await first.spool('restart').create();
      await queue(first).put({ leaseTimeoutSeconds: 30 });
      const sent = await queue(first).send({ n: 2 });
      const old = await queue(first).receive({ operationId: 'jobs-2:receive' });
      await crash(first);
      await advance(h, 5_000);

      const second = worker();
      expect(await queue(second).receive({ operationId: 'jobs-2:receive' })).toBeNull(); // still leased to the crashed worker
      await advance(h, 30_000);
      const lease = await queue(second).receive({ operationId: 'jobs-2:receive' });
      expect(lease?.message.id).toBe(sent.id);
      expect(lease?.claimId).not.toBe(old?.claimId);
      expect(lease?.message.deliveryCount).toBe(2);
      await lease?.ack();
    });
  });
});
