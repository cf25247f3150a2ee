// The example survives kill -9 of itself and a restart of the server (issue 24): a real CLI
// server on PostgreSQL (manual clock, so the 15-minute claim expires when the test says), a
// worker child SIGKILLed while it works a task, the server SIGKILLed and restarted on the same
// database, the clock moved past the dead worker's claim, and a second run of the example: every
// task ends Done exactly once — one completion note each, the killed task on its second attempt.
import { afterAll, expect, it } from 'vitest';
import { Leasehold } from '@leasehold/client';
import { spawnCli, type CliProcess } from '../../../tests/support/cli-process.js';
import { createTestDatabase } from '../../../tests/support/postgres-database.js';
import { runExample } from '../../../tests/support/example-process.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startServer(url: string): Promise<{ cli: CliProcess; origin: string; lh: Leasehold }> {
  const cli = spawnCli(['--port', '0', '--clock', 'manual', '--control', '--store', url, '--log-level', 'silent']);
  cleanups.push(() => cli.kill());
  const origin = await cli.listening(60_000);
  const lh = new Leasehold({ baseUrl: origin, apiKey: 'lh_test_admin' });
  cleanups.push(() => lh.close());
  return { cli, origin, lh };
}

it('a worker killed mid-task and a restarted server still end with every task Done exactly once', async () => {
  const db = await createTestDatabase();
  cleanups.push(() => db.drop());
  let server = await startServer(db.url);
  const titles = ['rebuild the index', 'compact the log', 'rotate the keys'];
  const ids: number[] = [];
  for (const title of titles) ids.push((await server.lh.tasks.create({ title })).task.id);

  // Worker A starts the first task, whose work takes long, and is killed -9 in the middle of it.
  const a = runExample('task-worker', { LEASEHOLD_URL: server.origin, TASK_WORK_MS: '600000' });
  cleanups.push(() => void a.child.kill('SIGKILL'));
  const started = await a.waitFor(/task (\d+): working/, 60_000);
  const killedId = Number(started[1]);
  a.child.kill('SIGKILL');
  expect(await a.exited(10_000)).toEqual({ code: null, signal: 'SIGKILL' });
  const { task: orphan } = await server.lh.tasks.get(killedId);
  expect(orphan).toMatchObject({ status: 'InProgress', attempts: 1, lastClaim: { outcome: 'held' } });

  // The server dies too, and comes back on the same database.
  await server.lh.close();
  await server.cli.kill();
  server = await startServer(db.url);
  expect((await server.lh.tasks.get(killedId)).task).toMatchObject({ status: 'InProgress', claim: { claimId: orphan.claim?.claimId } });

  // The dead worker's claim runs out (15 min) and its backoff (5 s) passes: the task is stalled.
  const advanced = await fetch(`${server.origin}/_control/clock/advance`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ms: 15 * 60_000 + 5_000 }),
  });
  expect(advanced.status).toBe(200);
  expect((await server.lh.tasks.get(killedId)).task).toMatchObject({ status: 'InProgress', claim: null, stalled: true, lastClaim: { outcome: 'expired' } });

  // Worker B: the example as its README runs it, works every claimable task, stalled included.
  const b = runExample('task-worker', { LEASEHOLD_URL: server.origin });
  expect(await b.exited(90_000)).toEqual({ code: 0, signal: null });
  expect(b.output()).toContain(`done: ${titles.length} tasks`);
  for (const id of ids) {
    const { task } = await server.lh.tasks.get(id);
    expect(task.status).toBe('Done');
    expect(task.notes.filter((note) => note.text.startsWith('rebuilt ')), `task ${id} completed once`).toHaveLength(1);
    expect(task.attempts).toBe(id === killedId ? 2 : 1);
  }
  expect(await server.lh.tasks.list({ claimable: true }).next()).toEqual({ done: true, value: undefined });
  await server.cli.stop();
}, 240_000);
