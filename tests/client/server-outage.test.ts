/**
 * The worker loops ride through a real server outage (issue 24): a real CLI server process is
 * stopped for 10 s in the middle of a run — frozen with SIGSTOP on the memory store (its state
 * lives in the process), killed and restarted on the same port and database on PostgreSQL — while
 * a `claim.run` holds a lease, a second `claim.run` starts during the outage, a `tasks.work` runs
 * its fn and a `queue.consume` polls. Nothing rejects; the held lease keeps its fence; every
 * message is handled once and the task is done once. The server runs on its manual clock, so
 * nothing expires server-side; the client's leases (60 s) outlast the outage by far, so the real
 * 10 s wait is not a race even on a loaded machine.
 */
import { createServer } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { Leasehold } from '../../packages/client/src/index.js';
import { spawnCli, type CliProcess } from '../support/cli-process.js';
import { createTestDatabase } from '../support/postgres-database.js';

const OUTAGE_MS = 10_000;
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A port nothing listens on now, so a restarted server can take the same one. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

async function startCli(port: number, store: string[]): Promise<CliProcess> {
  const cli = spawnCli(['--port', String(port), '--clock', 'manual', '--log-level', 'silent', ...store]);
  cleanups.push(() => cli.kill());
  await cli.listening(90_000);
  return cli;
}

const uuid = () => crypto.randomUUID();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` every 100 ms until it holds (at most `ms`). */
async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

const STORES = [
  { name: 'memory (SIGSTOP for 10 s)', kind: 'memory' },
  { name: 'PostgreSQL (killed, restarted after 10 s)', kind: 'postgres' },
] as const;

it.each(STORES)('$name: claim.run, tasks.work and consume ride through and finish once', async ({ kind }) => {
  const port = await freePort();
  const store: string[] = [];
  if (kind === 'postgres') {
    const db = await createTestDatabase();
    cleanups.push(() => db.drop());
    store.push('--store', db.url);
  }
  let cli = await startCli(port, store);
  const lh = new Leasehold({ baseUrl: `http://127.0.0.1:${port}`, apiKey: 'lh_test_admin', heartbeatTtlSeconds: 60, timeoutMs: 5_000 });
  cleanups.push(() => lh.close());
  const errors: unknown[] = [];
  const run = lh.space(uuid()).run(uuid(), { holder: 'outage-worker' });

  // Loop 1: a claim held across the outage.
  let openGate!: () => void;
  const gate = new Promise<void>((resolve) => (openGate = resolve));
  const fences: number[] = [];
  const holding = run.claim('held-through').run(async (lease) => {
    fences.push(lease.fence);
    await gate;
    fences.push(lease.fence);
    return lease.status;
  });
  // Loop 2: tasks.work whose fn finishes during the outage (its complete waits for the server).
  const { task } = await lh.tasks.create({ title: 'ride it out' });
  let finishTask!: () => void;
  const taskGate = new Promise<void>((resolve) => (finishTask = resolve));
  let taskRuns = 0;
  const working = lh.tasks.work(task.id, async () => {
    taskRuns += 1;
    await taskGate;
    return 'done';
  });
  // Loop 3: a consumer polling through the outage.
  await lh.spool('outage').create();
  const queue = lh.spool('outage').queue('jobs');
  await queue.put({ leaseTimeoutSeconds: 300 });
  const handled: string[] = [];
  const stopConsuming = new AbortController();
  const consuming = queue.consume((message) => void handled.push(String(message.body)), {
    signal: stopConsuming.signal,
    pollIntervalMs: 200,
    onError: (error) => void errors.push(error),
  });
  for (const body of ['a', 'b', 'c']) await queue.send(body);
  await until(() => handled.length === 3 && fences.length === 1 && taskRuns === 1, 30_000, 'the loops to start');

  // The outage.
  const heartbeatsBefore = lh.stats().heartbeatsSucceeded;
  if (kind === 'memory') cli.child.kill('SIGSTOP');
  else await cli.kill();
  finishTask();
  const lateStart = run.claim('started-in-the-dark').run((lease) => lease.fence);
  await sleep(OUTAGE_MS);
  if (kind === 'memory') cli.child.kill('SIGCONT');
  else cli = await startCli(port, store);

  // Service resumes without anything rejecting.
  expect(typeof (await lateStart)).toBe('number');
  expect(await working).toBe('done');
  for (const body of ['d', 'e', 'f']) await queue.send(body);
  await until(() => handled.length === 6, 60_000, 'the messages sent after the outage');
  await until(() => lh.stats().heartbeatsSucceeded > heartbeatsBefore, 60_000, 'a heartbeat after the outage');
  openGate();
  expect(await holding).toBe('held');
  stopConsuming.abort();
  await consuming.catch(() => {});

  expect(fences).toEqual([fences[0], fences[0]]); // the same grant, never lost
  expect([...handled].sort()).toEqual(['a', 'b', 'c', 'd', 'e', 'f']); // each once
  expect(taskRuns).toBe(1);
  const { task: done } = await lh.tasks.get(task.id);
  expect(done).toMatchObject({ status: 'Done', attempts: 1 });
  expect(errors).toEqual([]);
  await cli.stop();
}, 240_000);
