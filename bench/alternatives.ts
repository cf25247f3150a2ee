/**
 * 11. Alternatives on PostgreSQL (issue #29): Leasehold through the SDK against what a PostgreSQL
 * user would otherwise run, at 8 workers, on one throwaway cluster (a database per system):
 *   - queue: send + receive + ack through `lh.spool(s).queue(q)` vs pg-boss's send + fetch + complete;
 *   - exclusive lease: `claim(key).tryAcquire()` + `release()` vs a hand-written lease row through
 *     `pg`, and vs `pg_advisory_lock` / `pg_advisory_unlock`;
 * in jobs or pairs per second, and in CPU per job or pair summed over every process involved:
 * the system's driver (a child process of its own, `alternatives.child.ts`), the Leasehold server
 * child (the CLI as it ships) and every process of the cluster.
 */
import { loadavg } from 'node:os';
import type { DriverChildArgs, WindowCommand, WindowResult } from './alternatives.child.js';
import { startCommandChild, startReferenceServer, type CommandChild, type ServerProcess } from './lib/child.js';
import { interleaved } from './lib/measure.js';
import { clusterFacts } from './lib/proc-cpu.js';
import { SDK_BUILD } from './lib/sdk.js';
import { POOL_SIZE, startBenchCluster, type SqlBackend } from './lib/sql-backends.js';
import { median } from './lib/stats.js';
import { pairedRow, ratioTarget, type Benchmark, type Row } from './lib/types.js';

/** Workers per system: closed loops, each on a key of its own. */
const WORKERS = 8;

type Driver = CommandChild<{ ready: true }>;

/** The CPU side of one system's windows, per round: µs per unit over all its processes, and the parts. */
interface CpuSamples {
  total: number[];
  driver: number[];
  server: number[];
  postgres: number[];
  misses: number;
  /** HTTP requests the server answered per unit (Leasehold only; the warm calls counted as units too). */
  requests: number[];
}

function cpuSamples(): CpuSamples {
  return { total: [], driver: [], server: [], postgres: [], misses: 0, requests: [] };
}

/** Requests the server has answered (its `/metrics` `leasehold_http_requests_total`, every operation and status). */
async function requestsServed(serverUrl: string): Promise<number> {
  const text = await (await fetch(`${serverUrl}/metrics`)).text();
  const lines = text.split('\n').filter((line) => line.startsWith('leasehold_http_requests_total'));
  return lines.reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

/**
 * One window of `op` on `driver` per call: answers units/s and records its CPU per unit in `cpu`
 * (and, given the server's URL, the requests it answered per unit).
 */
function candidate(driver: Driver, op: string, windowMs: number, cpu: CpuSamples, serverUrl?: string): () => Promise<number> {
  return async () => {
    const command: WindowCommand = { op, windowMs };
    const served = serverUrl === undefined ? 0 : await requestsServed(serverUrl);
    const r = await driver.ask<WindowResult>(command);
    if (r.ops === 0) throw new Error(`${op}: no operation completed in ${windowMs} ms`);
    if (serverUrl !== undefined) cpu.requests.push(((await requestsServed(serverUrl)) - served) / (r.ops + WORKERS));
    const perUnit = (ms: number) => (ms * 1000) / r.ops;
    cpu.total.push(perUnit(r.cpuMs.driver + r.cpuMs.server + r.cpuMs.postgres));
    cpu.driver.push(perUnit(r.cpuMs.driver));
    cpu.server.push(perUnit(r.cpuMs.server));
    cpu.postgres.push(perUnit(r.cpuMs.postgres));
    cpu.misses += r.misses;
    return r.ops / r.seconds;
  };
}

/** A row comparing `a` (the candidate) with `b`, paired per round. */
const compare = (label: string, unit: string, a: number[], baselineLabel: string, b: number[], target?: Row['target']): Row =>
  pairedRow('alternatives', label, unit, a, baselineLabel, b, target);

/** `SDK 120 + server 310 + PostgreSQL 240 µs` — the median parts of one system's CPU per unit. */
function parts(name: string, cpu: CpuSamples, withServer: boolean): string {
  const µs = (values: number[]) => Math.round(median(values)).toLocaleString('en-US');
  return `${name}: driver ${µs(cpu.driver)}${withServer ? ` + server ${µs(cpu.server)}` : ''} + PostgreSQL ${µs(cpu.postgres)} µs`;
}

function urlOf(db: SqlBackend): string {
  if (db.url === undefined) throw new Error('a PostgreSQL database has a URL');
  return db.url;
}

export const alternatives: Benchmark = {
  name: 'alternatives',
  title: `11. Alternatives on PostgreSQL — Leasehold through the SDK vs pg-boss, a hand-written lease row and advisory locks, ${WORKERS} workers, one throwaway cluster`,
  async run(ctx) {
    const windowMs = ctx.quick ? 150 : 2_000;
    const warmMs = ctx.quick ? 0 : 1_000;
    const rounds = ctx.quick ? 1 : ctx.rounds;
    const loadAtStart = loadavg().map((l) => l.toFixed(2)).join(', ');
    const cluster = await startBenchCluster();
    let server: ServerProcess | undefined;
    const drivers: Driver[] = [];
    const startDriver = async (args: DriverChildArgs) => {
      const driver = await startCommandChild<{ ready: true }>('bench/alternatives.child.ts', [JSON.stringify(args)]);
      drivers.push(driver);
      return driver;
    };
    try {
      const [lhDb, bossDb, pgDb] = await Promise.all([cluster.database(), cluster.database(), cluster.database()]);
      // The CLI as it ships: dist/cli.js, 127.0.0.1, port 0, the real clock, its default request log.
      server = await startReferenceServer(['--store', urlOf(lhDb), '--pool-size', String(POOL_SIZE)]);
      const common = { postmasterPid: (await clusterFacts(urlOf(pgDb))).postmasterPid, workers: WORKERS };
      const [lh, boss, raw] = await Promise.all([
        startDriver({ system: 'leasehold', serverUrl: server.url, serverPid: server.pid, ...common }),
        startDriver({ system: 'pg-boss', databaseUrl: urlOf(bossDb), poolSize: POOL_SIZE, ...common }),
        startDriver({ system: 'pg', databaseUrl: urlOf(pgDb), poolSize: POOL_SIZE, ...common }),
      ]);
      if (warmMs > 0) {
        ctx.log('alternatives: warm-up');
        const warm: [Driver, string][] = [[lh, 'queue'], [boss, 'queue'], [lh, 'lease'], [raw, 'lease-row'], [raw, 'advisory']];
        for (const [driver, op] of warm) await driver.ask<WindowResult>({ op, windowMs: warmMs });
      }

      ctx.log(`alternatives: queue, ${rounds} rounds × 2 × ${windowMs} ms`);
      const sdkQueueCpu = cpuSamples();
      const bossCpu = cpuSamples();
      const queue = await interleaved(rounds, {
        sdk: candidate(lh, 'queue', windowMs, sdkQueueCpu, server.url),
        boss: candidate(boss, 'queue', windowMs, bossCpu),
      });

      ctx.log(`alternatives: exclusive lease, ${rounds} rounds × 3 × ${windowMs} ms`);
      const sdkLeaseCpu = cpuSamples();
      const rowCpu = cpuSamples();
      const advisoryCpu = cpuSamples();
      const lease = await interleaved(rounds, {
        sdk: candidate(lh, 'lease', windowMs, sdkLeaseCpu, server.url),
        row: candidate(raw, 'lease-row', windowMs, rowCpu),
        advisory: candidate(raw, 'advisory', windowMs, advisoryCpu),
      });

      const rowLabel = 'lease row via pg';
      const advisoryLabel = 'pg_advisory_lock/unlock';
      const rows: Row[] = [
        compare('queue: send+receive+ack through the SDK', 'jobs/s', queue.sdk, 'pg-boss send+fetch+complete', queue.boss, ratioTarget('>=', 1)),
        compare('queue: CPU per job, all processes', 'µs/job', sdkQueueCpu.total, 'pg-boss', bossCpu.total, ratioTarget('<=', 1)),
        compare('exclusive lease: tryAcquire+release through the SDK', 'pairs/s', lease.sdk, rowLabel, lease.row, ratioTarget('>=', 0.5)),
        compare('exclusive lease: SDK vs advisory locks', 'pairs/s', lease.sdk, advisoryLabel, lease.advisory),
        compare('exclusive lease: CPU per pair, all processes', 'µs/pair', sdkLeaseCpu.total, rowLabel, rowCpu.total),
        compare('exclusive lease: CPU per pair vs advisory locks', 'µs/pair', sdkLeaseCpu.total, advisoryLabel, advisoryCpu.total),
      ];
      const misses = sdkQueueCpu.misses + bossCpu.misses;
      return {
        rows,
        notes: [
          `${WORKERS} workers per system, closed loops, ${rounds} rounds × ${windowMs} ms windows${warmMs > 0 ? ` after a ${warmMs} ms warm-up of each` : ''}, order rotating; one throwaway PostgreSQL cluster (fsync, synchronous_commit and full_page_writes off, as the tests run it), a database per system; load average at start ${loadAtStart}`,
          `Leasehold: packages/server/dist/cli.js --store postgres://…/<db> --pool-size ${POOL_SIZE} (the real clock, request log at info to a drained pipe, background sweep on); the SDK (${SDK_BUILD}) with its own keep-alive Agent, ${WORKERS} requests in flight`,
          `pg-boss 10.4.2: new PgBoss({ connectionString, max: ${POOL_SIZE} }), its defaults otherwise (maintenance and cron monitoring on, a standard queue); a job is send, fetch (one job) and complete; completed jobs stay in its table (archived after 12 h) where Leasehold's ack deletes the message`,
          `lease row: INSERT INTO lease(key, holder, expires_at) … ON CONFLICT DO NOTHING RETURNING key, then DELETE … WHERE key = $1 AND holder = $2 (pg.Pool max ${POOL_SIZE}, unnamed statements); advisory: pg_advisory_lock($1) + pg_advisory_unlock($1) on one connection checked out of the same pool per pair; the SDK's tryAcquire does not wait, like ON CONFLICT DO NOTHING`,
          'CPU: utime+stime of each process over the window — the driver child (its own process.cpuUsage), the Leasehold server child (/proc/<pid>/stat) and every process of the cluster (the postmaster with its reaped children and all its live children: backends, WAL writer, checkpointer, autovacuum); the idle system\'s background work (Leasehold\'s sweep, pg-boss\'s timers) lands in the other\'s cluster figure and is small',
          `CPU per job, medians: ${parts('Leasehold', sdkQueueCpu, true)}; ${parts('pg-boss', bossCpu, false)}`,
          `CPU per pair, medians: ${parts('Leasehold', sdkLeaseCpu, true)}; ${parts('lease row', rowCpu, false)}; ${parts('advisory', advisoryCpu, false)}`,
          `HTTP requests the server answered (its /metrics), medians: ${median(sdkQueueCpu.requests).toFixed(2)} per job, ${median(sdkLeaseCpu.requests).toFixed(2)} per pair (pg-boss sends one statement each for send, fetch and complete: 3 per job)`,
          ...(misses > 0 ? [`empty receives/fetches (asked again): Leasehold ${sdkQueueCpu.misses}, pg-boss ${bossCpu.misses}`] : []),
        ],
      };
    } finally {
      await Promise.all(drivers.map((d) => d.close()));
      await server?.close();
      cluster.stop();
    }
  },
};
