/**
 * kill -9 durability: the real CLI server (a `node` child) on PostgreSQL and on the embedded
 * directory store, SIGKILLed at seeded random instants while lanes of writes are in flight, then
 * restarted on the same store. Every write it acknowledged (2xx) must be there afterwards, exactly:
 * claim ids, fences and expiries, tokens that still renew, Idempotency-Keys that replay the first
 * answer, tasks' ETags, notes and claims, messages and their leases — and new fences above every
 * old one (tests/store/support/durable-workload.ts). The server's clock is manual (kept in the
 * database), so nothing expires between a kill and the restart however slow the machine is.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../reliability/support/random.js';
import { spawnCli, type CliProcess } from '../support/cli-process.js';
import { seedPgliteDirectory } from '../support/pglite-template.js';
import { createTestDatabase } from '../support/postgres-database.js';
import { Ledger, burst, drainQueues, prepare, verify } from './support/durable-workload.js';

/** SIGKILLs per store (an embedded restart costs several seconds: opening PGlite's directory). */
const KILLS = { postgres: 3, embedded: 2 };
const SEED = 0x6b696c6c;
const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const starts: number[] = [];
async function start(store: string): Promise<{ cli: CliProcess; origin: string }> {
  const began = performance.now();
  const cli = spawnCli(['--port', '0', '--clock', 'manual', '--store', store]);
  cleanups.push(() => cli.kill());
  const origin = await cli.listening(60_000);
  starts.push(Math.round(performance.now() - began));
  return { cli, origin };
}

/** Bursts of writes, each ended by a SIGKILL at a seeded instant, a restart and a full check. */
async function killAndCheck(store: string, seed: number, kills: number): Promise<{ acked: number; kills: number; waiting: number; startMs: string }> {
  const random = seededRandom(seed);
  const ledger = new Ledger();
  let { cli, origin } = await start(store);
  await prepare(origin);
  for (let kill = 0; kill < kills; kill++) {
    const before = ledger.acked;
    const writes = burst(origin, ledger, random);
    // The kill lands 100–600 ms into the burst, once it has at least a few acknowledged writes.
    const delay = 100 + Math.floor(random() * 500);
    const since = performance.now();
    while (performance.now() - since < delay || (ledger.acked - before < 5 && performance.now() - since < 10_000)) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await cli.kill();
    await writes;
    ({ cli, origin } = await start(store));
    await verify(origin, ledger);
  }
  const waiting = await drainQueues(origin, ledger);
  await cli.stop();
  expect(await cli.exited).toBe(0);
  const startMs = starts.splice(0).join('/');
  return { acked: ledger.acked, kills, waiting, startMs };
}

describe('kill -9 of the server during bursts of writes', () => {
  it('loses nothing acknowledged on PostgreSQL', async () => {
    const db = await createTestDatabase();
    cleanups.push(() => db.drop());
    const result = await killAndCheck(db.url, SEED, KILLS.postgres);
    expect(result.acked).toBeGreaterThanOrEqual(KILLS.postgres * 5);
    console.log(`kill -9 on PostgreSQL: ${result.acked} acknowledged writes, ${result.kills} kills, ${result.waiting} waiting messages found, starts ${result.startMs} ms`);
  }, 90_000);

  it('loses nothing acknowledged on the embedded directory store', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'leasehold-kill-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    // The schema comes from the migrated template: the first start's migrations are not what this
    // test measures (tests/packaging/consumer.test.ts starts the packed CLI on an empty directory).
    await seedPgliteDirectory(join(dir, 'data'));
    const result = await killAndCheck(join(dir, 'data'), SEED + 1, KILLS.embedded);
    expect(result.acked).toBeGreaterThanOrEqual(KILLS.embedded * 5);
    console.log(`kill -9 on the embedded store: ${result.acked} acknowledged writes, ${result.kills} kills, ${result.waiting} waiting messages found, starts ${result.startMs} ms`);
  }, 120_000);
});
