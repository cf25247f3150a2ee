/**
 * Resource hygiene. After a long run through a real client over real HTTP, `lh.close()` and
 * `listener.close()` leave no timer or socket behind (`process.getActiveResourcesInfo()` against
 * a baseline taken before); the engine's counts return to their start once the manual clock has
 * passed every lease, tombstone (10 min) and idempotency record (24 h); and the server's heap,
 * measured in its own process with `--expose-gc` (`fixtures/heap-server.ts`, driven by a real
 * client over HTTP from here), returns to within 10% of its start.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { Leasehold } from '../../packages/client/src/index.js';
import { createLeaseholdServer, listen, type LeaseholdServer } from '../../packages/server/src/index.js';
import { exited, onLines, spawnFixture } from './support/children.js';
import { heapRun, type HeapRun } from './support/heap-workload.js';
import { SuiteReport } from './support/report.js';
import { size, timeout } from './support/sizes.js';

const ADMIN = 'lh_test_admin';
const CYCLES = size(300, 3_000);
const HEAP_REPEATED_CYCLES = size(2_000, 20_000);
const HEAP_DISTINCT_CYCLES = size(8_000, 40_000);
const CLIENT_CLAIM_CYCLES = size(3_000, 30_000);
const DAY = 24 * 60 * 60_000;

const report = new SuiteReport('reliability: resource hygiene');
afterAll(() => report.print());

interface ClientProbe {
  baseline: number;
  final: number;
  timersListsBefore: number;
  timersListsAfter: number;
}

/** Runs `fixtures/heap-client.ts` (a client's task claim/release cycles, measured in its own process). */
async function clientProbe(cycles: number): Promise<ClientProbe> {
  const child = spawnFixture('heap-client.ts', { nodeFlags: ['--expose-gc'], args: [String(cycles)] });
  let line = '';
  let stderr = '';
  onLines(child, (l) => (line = l));
  child.stderr?.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  const { code } = await exited(child);
  if (code !== 0) throw new Error(`heap-client exited ${code}: ${stderr.slice(-2000)}`);
  return JSON.parse(line) as ClientProbe;
}

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
async function longRun(lh: Leasehold, server: LeaseholdServer): Promise<{ cycles: number; heartbeats: number }> {
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
      const server = createLeaseholdServer({ clock: 'manual' });
      const listener = await listen(server, { port: 0 });
      const lh = new Leasehold({ baseUrl: listener.url, apiKey: ADMIN, heartbeatTtlSeconds: 5 });
      const { cycles, heartbeats } = await longRun(lh, server);
      const during = resources();
      const stats = lh.stats();
      await lh.close();
      await listener.close();
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
      const server = createLeaseholdServer({ clock: 'manual' });
      const start = server.control.stats();
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
        const peak = server.control.stats();
        await lh.close({ releaseLeases: false });
        await waiter;
        // Past every lease (task claims: 15 min), then past their tombstones and the idempotency records.
        server.control.advanceClock(16 * 60_000);
        // The queue's messages are data, not leases: settle the ones left (their leases expired).
        const sweeper = new Leasehold({ baseUrl: listener.url, apiKey: ADMIN });
        for (let m = await sweeper.spool('hygiene').queue('q').receive(); m !== null; m = await sweeper.spool('hygiene').queue('q').receive()) await m.ack();
        await sweeper.close();
        server.control.advanceClock(DAY + 11 * 60_000);
        const end = server.control.stats();
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

  const mb = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;

  // Both runs go at once (their servers on the other core), started by whichever heap test comes
  // first — after the resource test, whose baseline must not see their process handles.
  let runs: { repeated: Promise<HeapRun>; distinct: Promise<HeapRun>; client: Promise<ClientProbe> } | undefined;
  const heapRuns = () =>
    (runs ??= {
      client: clientProbe(CLIENT_CLAIM_CYCLES),
      repeated: heapRun('repeated', HEAP_REPEATED_CYCLES),
      distinct: heapRun('distinct', HEAP_DISTINCT_CYCLES),
    });

  it(
    'server heap (its own process, --expose-gc): back within 10% of its start after a long run over a fixed set of keys',
    async () => {
      const result = await heapRuns().repeated;
      const growth = (result.final - result.baseline) / result.baseline;
      report.set(
        `server heap, ${HEAP_REPEATED_CYCLES} cycles over 16 keys: baseline / peak / final (growth)`,
        `${mb(result.baseline)} / ${mb(result.peak)} / ${mb(result.final)} (${(growth * 100).toFixed(1)}%)`,
      );
      expect({ ...result.stats, fence: 0 }).toEqual({ held: 0, queued: 0, tombstones: 0, heapSize: 0, fence: 0, messages: 0, idempotencyRecords: 0 });
      expect(result.peak - result.baseline, 'the run held memory worth measuring at its peak').toBeGreaterThan(result.baseline * 0.2);
      expect(growth).toBeLessThan(0.1);
    },
    timeout(90_000, 600_000),
  );

  it(
    'server heap (its own process, --expose-gc): back within 10% of its start after a long run over keys used once each',
    async () => {
      const result = await heapRuns().distinct;
      const growth = (result.final - result.baseline) / result.baseline;
      report.set(
        `server heap, ${HEAP_DISTINCT_CYCLES} cycles, each on a new key: baseline / peak / final (growth)`,
        `${mb(result.baseline)} / ${mb(result.peak)} / ${mb(result.final)} (${(growth * 100).toFixed(1)}%, ${Math.round((result.final - result.baseline) / HEAP_DISTINCT_CYCLES)} B per key)`,
      );
      expect({ ...result.stats, fence: 0 }).toEqual({ held: 0, queued: 0, tombstones: 0, heapSize: 0, fence: 0, messages: 0, idempotencyRecords: 0 });
      expect(
        growth,
        'every key ever released keeps its state (the last release and its observation) and every space and cancelled run stays, after every lease, tombstone and idempotency record is gone',
      ).toBeLessThan(0.1);
    },
    timeout(120_000, 900_000),
  );

  it(
    `client heap (its own process, --expose-gc): ${CLIENT_CLAIM_CYCLES} task claim/release cycles leave no timer lists behind`,
    async () => {
      const result = await heapRuns().client;
      const lists = result.timersListsAfter - result.timersListsBefore;
      report.set(
        `client heap, ${CLIENT_CLAIM_CYCLES} task claim/release cycles: baseline / final / Node TimersLists added`,
        `${mb(result.baseline)} / ${mb(result.final)} / ${lists}`,
      );
      expect(
        lists,
        'each claim arms the scheduler\'s timer with a jittered delay of its own (5 min ± 10% for a task claim); Node keeps one TimersList per distinct delay until that delay has passed, cleared or not',
      ).toBeLessThan(100);
    },
    timeout(60_000, 600_000),
  );
});
