/**
 * Resource hygiene, on every store of the matrix. After a long run through a real client over
 * real HTTP, `lh.close()`, `listener.close()` and closing the store leave no timer or socket
 * behind (`process.getActiveResourcesInfo()` against a baseline taken before); the store's counts
 * return to their start once the manual clock has passed every lease, tombstone (10 min) and
 * idempotency record (24 h). The heaps of a server and a client process: heap.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { Leasehold } from '../../packages/client/src/index.js';
import { listen, type LeaseholdServer, type Store } from '../../packages/server/src/index.js';
import { createMatrixServer, disposeMatrixServers } from '../support/matrix-server.js';
import { SuiteReport } from './support/report.js';
import { size, timeout } from './support/sizes.js';

const ADMIN = 'lh_test_admin';
const CYCLES = size(300, 3_000);
const DAY = 24 * 60 * 60_000;

const report = new SuiteReport('reliability: resource hygiene');
afterAll(async () => {
  await disposeMatrixServers();
  report.print();
});

/** Active resources of this thread's event loop, counted by type. */
function resources(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const type of process.getActiveResourcesInfo()) counts[type] = (counts[type] ?? 0) + 1;
  return counts;
}

/** The resource types (and how many) `now` has beyond `baseline`. */
function added(baseline: Record<string, number>, now: Record<string, number>): Record<string, number> {
  const extra: Record<string, number> = {};
  for (const [type, count] of Object.entries(now)) if (count > (baseline[type] ?? 0)) extra[type] = count - (baseline[type] ?? 0);
  return extra;
}

/**
 * The long run: CYCLES acquire / renew / raw-heartbeat / release cycles over four lanes, plus
 * waiting acquires granted by the batch heartbeat, task claims and spool messages.
 */
async function longRun(lh: Leasehold, server: LeaseholdServer<Store>): Promise<{ cycles: number; heartbeats: number }> {
  const spaceId = randomUUID();
  let cycles = 0;
  let heartbeats = 0;
  const lane = async (laneId: number) => {
    const run = lh.space(spaceId).run(randomUUID(), { holder: `lane-${laneId}` });
    for (let i = laneId; i < CYCLES; i += 4) {
      const lease = await run.claim(`hygiene/${laneId}/${i % 8}`).tryAcquire();
      expect(lease).not.toBeNull();
      await lease?.renew();
      if (i % 3 === 0) {
        await lh.heartbeat({ ttl: 30, details: { cycle: i } });
        heartbeats++;
      }
      await lease?.release({ cycle: i });
      cycles++;
    }
  };
  await Promise.all([0, 1, 2, 3].map(lane));

  // Waiting acquires: queued behind a holder, granted through the batch heartbeat once it leaves.
  const run = lh.space(spaceId).run(randomUUID(), { holder: 'waiter' });
  const holder = await run.claim('contended').acquire();
  const waiting = run.claim('contended').acquire();
  await new Promise((resolve) => setTimeout(resolve, 50));
  await holder.release();
  const granted = await waiting;
  expect(granted.status).toBe('held');
  await granted.release();

  // Task claims (the safe worker loop) and spool messages (receive, consume).
  for (let i = 0; i < 10; i++) {
    const { task } = await lh.tasks.create({ title: `hygiene ${i}` });
    await lh.tasks.work(task.id, async (ctx) => ctx.addNote('checked'), { minRemainingMs: 1_000 });
  }
  const queue = lh.spool('hygiene').queue('q');
  await lh.spool('hygiene').create();
  await queue.put({ leaseTimeoutSeconds: 30 });
  for (let i = 0; i < 20; i++) await queue.send({ i });
  for (let i = 0; i < 10; i++) await (await queue.receive())?.ack();
  const stop = new AbortController();
  let consumed = 0;
  const consuming = queue.consume(async () => {
    if (++consumed === 10) stop.abort();
  }, { signal: stop.signal, pollIntervalMs: 20 });
  await consuming;
  void server;
  return { cycles, heartbeats };
}

describe('resource hygiene', () => {
  it(
    `${CYCLES} acquire/renew/release cycles and heartbeats through a real client over HTTP: no timer or socket left after close`,
    async () => {
      // Let anything the previous test left settle, then take the baseline.
      await new Promise((resolve) => setTimeout(resolve, 50));
      const baseline = resources();
      const server = await createMatrixServer({ clock: 'manual' });
      const listener = await listen(server, { port: 0 });
      const lh = new Leasehold({ baseUrl: listener.url, apiKey: ADMIN, heartbeatTtlSeconds: 5 });
      const { cycles, heartbeats } = await longRun(lh, server);
      const during = resources();
      const stats = lh.stats();
      await lh.close();
      await listener.close();
      await disposeMatrixServers();
      // Sockets close asynchronously: poll (bounded) until the loop is back to its baseline.
      let extra = added(baseline, resources());
      for (const started = performance.now(); Object.keys(extra).length > 0 && performance.now() - started < 5_000; extra = added(baseline, resources())) {
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      report.set('long run: cycles / raw heartbeats / scheduler heartbeats', `${cycles} / ${heartbeats} / ${stats.heartbeatsSent}`);
      report.set('active resources: baseline', baseline);
      report.set('active resources: during the run, beyond baseline', added(baseline, during));
      report.set('active resources: after close, beyond baseline', extra);
      expect(cycles).toBe(CYCLES);
      expect(extra, 'timers or sockets left behind').toEqual({});
    },
    timeout(60_000, 300_000),
  );

  it(
    'the engine\'s counts return to their start once leases, tombstones (10 min) and idempotency records (24 h) are past',
    async () => {
      const server = await createMatrixServer({ clock: 'manual' });
      const start = await server.control.stats();
      const listener = await listen(server, { port: 0 });
      const lh = new Leasehold({ baseUrl: listener.url, apiKey: ADMIN, heartbeatTtlSeconds: 5 });
      try {
        await longRun(lh, server);
        // Leave leases of every kind behind: held claims, a queued waiter, a task claim, a leased message.
        const run = lh.space(randomUUID()).run(randomUUID(), { holder: 'left' });
        for (let i = 0; i < 20; i++) await run.claim(`left/${i}`).tryAcquire();
        const waiter = run.claim('left/0').acquire().catch(() => 'left the queue');
        const { task, etag } = await lh.tasks.create({ title: 'left claimed' });
        await lh.tasks.claim(task.id, { etag });
        await lh.spool('hygiene').queue('q').receive();
        const peak = await server.control.stats();
        await lh.close({ releaseLeases: false });
        await waiter;
        // Past every lease (task claims: 15 min), then past their tombstones and the idempotency records.
        await server.control.advanceClock(16 * 60_000);
        // The queue's messages are data, not leases: settle the ones left (their leases expired).
        const sweeper = new Leasehold({ baseUrl: listener.url, apiKey: ADMIN });
        for (let m = await sweeper.spool('hygiene').queue('q').receive(); m !== null; m = await sweeper.spool('hygiene').queue('q').receive()) await m.ack();
        await sweeper.close();
        await server.control.advanceClock(DAY + 11 * 60_000);
        const end = await server.control.stats();
        report.set('engine counts: start', start);
        report.set('engine counts: at the peak', peak);
        report.set('engine counts: after 24 h 27 min of server time', end);
        expect({ ...end, fence: 0 }).toEqual({ ...start, fence: 0 });
      } finally {
        await lh.close();
        await listener.close();
      }
    },
    timeout(60_000, 300_000),
  );
});
