/**
 * 12. Scaling out the server (issue #29): keyed renew through the SDK, 24 workers, with 1, 2 and
 * 3 reference server processes (the CLI as it ships) on ONE PostgreSQL database of a throwaway
 * cluster. The workers (one driver child, `alternatives.child.ts`, one `Leasehold` client per
 * server) each renew a claim of their own in a closed loop, split evenly over the first N
 * servers. Per N, interleaved rounds: renews/s, and CPU per renew summed over the driver, the N
 * servers and every process of the cluster; the servers not in use are measured alongside as
 * idle processes, so a per-process background cost shows as a figure of its own.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import type { DriverChildArgs, WindowResult } from './alternatives.child.js';
import { startCommandChild, startReferenceServer, type CommandChild, type ServerProcess } from './lib/child.js';
import { interleaved } from './lib/measure.js';
import { clusterCpuMs, clusterFacts, processCpuMs } from './lib/proc-cpu.js';
import { SDK_BUILD } from './lib/sdk.js';
import { POOL_SIZE, startBenchCluster } from './lib/sql-backends.js';
import { median, summarize } from './lib/stats.js';
import { finishRow, pairedRow, ratioTarget, type Benchmark, type Row } from './lib/types.js';

/** Workers: closed loops, each renewing a claim of its own; divisible by 1, 2 and 3. */
const WORKERS = 24;
/** Server processes on the one database. */
const PROCESSES = [1, 2, 3] as const;

type Driver = CommandChild<{ ready: true }>;

/** The CPU side of one N's windows, per round: µs per renew over all its processes, and the parts. */
interface CpuSamples {
  total: number[];
  driver: number[];
  servers: number[];
  postgres: number[];
  /** CPU ms per second of each server not in use, one sample per idle server and window. */
  idleServerMsPerS: number[];
  /** Context switches (voluntary + not) of the servers in use, per renew. */
  switches: number[];
}

function cpuSamples(): CpuSamples {
  return { total: [], driver: [], servers: [], postgres: [], idleServerMsPerS: [], switches: [] };
}

/** A process's context switches so far, voluntary and not (`/proc/<pid>/status`; 0 once it is gone). */
function contextSwitches(pid: number): number {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return 0;
  }
  return [...status.matchAll(/^(?:non)?voluntary_ctxt_switches:\s+(\d+)$/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
}

/** One window of renews over the first `n` servers per call: answers renews/s, records its CPU in `cpu`. */
function candidate(driver: Driver, serverPids: readonly number[], n: number, windowMs: number, cpu: CpuSamples): () => Promise<number> {
  const inUse = serverPids.slice(0, n);
  const switches = () => inUse.reduce((sum, pid) => sum + contextSwitches(pid), 0);
  return async () => {
    const switches0 = switches(); // around the whole command: its warm calls (one per worker) count too
    const r = await driver.ask<WindowResult>({ op: `renew-${n}`, windowMs });
    cpu.switches.push((switches() - switches0) / r.ops);
    if (r.ops === 0) throw new Error(`renew over ${n} servers: no renew completed in ${windowMs} ms`);
    const perServer = r.cpuMs.servers ?? [];
    const servers = perServer.slice(0, n).reduce((a, b) => a + b, 0);
    const perRenew = (ms: number) => (ms * 1000) / r.ops;
    cpu.total.push(perRenew(r.cpuMs.driver + servers + r.cpuMs.postgres));
    cpu.driver.push(perRenew(r.cpuMs.driver));
    cpu.servers.push(perRenew(servers));
    cpu.postgres.push(perRenew(r.cpuMs.postgres));
    for (const ms of perServer.slice(n)) cpu.idleServerMsPerS.push(ms / r.seconds);
    return r.ops / r.seconds;
  };
}

/** CPU ms per second of each server and of the cluster over `ms` with no load at all. */
async function idleCpu(serverPids: readonly number[], postmasterPid: number, ms: number): Promise<{ servers: number[]; postgres: number }> {
  const servers0 = serverPids.map(processCpuMs);
  const postgres0 = clusterCpuMs(postmasterPid);
  const t0 = performance.now();
  await new Promise((resolve) => setTimeout(resolve, ms));
  const seconds = (performance.now() - t0) / 1000;
  return {
    servers: serverPids.map((pid, i) => (processCpuMs(pid) - (servers0[i] ?? 0)) / seconds),
    postgres: (clusterCpuMs(postmasterPid) - postgres0) / seconds,
  };
}

const fmt = (value: number, digits = 0) => value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const label = (n: number) => `${n} process${n === 1 ? '' : 'es'}`;

/** `driver 65 + servers 167 + PostgreSQL 300 = 532 µs (0.6 switches)` — the median parts of one N's CPU per renew. */
function parts(n: number, cpu: CpuSamples): string {
  const µs = `driver ${fmt(median(cpu.driver))} + servers ${fmt(median(cpu.servers))} + PostgreSQL ${fmt(median(cpu.postgres))} = ${fmt(median(cpu.total))} µs`;
  return `${label(n)}: ${µs} (servers' context switches ${fmt(median(cpu.switches), 2)})`;
}

export const scaleOut: Benchmark = {
  name: 'scale-out',
  title: `12. Scaling out the server — keyed renew through the SDK, ${WORKERS} workers, 1, 2 and 3 server processes (the CLI as it ships) on one PostgreSQL database`,
  async run(ctx) {
    const windowMs = ctx.quick ? 150 : 2_000;
    const warmMs = ctx.quick ? 0 : 1_000;
    const idleMs = ctx.quick ? 100 : 2_000;
    const rounds = ctx.quick ? 1 : ctx.rounds;
    const loadAtStart = loadavg().map((l) => l.toFixed(2)).join(', ');
    const cores = availableParallelism();
    const cluster = await startBenchCluster();
    const servers: ServerProcess[] = [];
    let driver: Driver | undefined;
    try {
      const db = await cluster.database();
      if (db.url === undefined) throw new Error('a PostgreSQL database has a URL');
      // One after the other: the first migrates the database, the others find it migrated.
      for (const _ of PROCESSES) servers.push(await startReferenceServer(['--store', db.url, '--pool-size', String(POOL_SIZE)]));
      const serverPids = servers.map((s) => s.pid);
      const { postmasterPid } = await clusterFacts(db.url);
      const args: DriverChildArgs = { system: 'leasehold-renew', serverUrls: servers.map((s) => s.url), postmasterPid, serverPids, workers: WORKERS };
      driver = await startCommandChild<{ ready: true }>('bench/alternatives.child.ts', [JSON.stringify(args)]);
      const d = driver;
      if (warmMs > 0) {
        ctx.log('scale-out: warm-up');
        for (const n of PROCESSES) await d.ask<WindowResult>({ op: `renew-${n}`, windowMs: warmMs });
      }
      const { backends } = await clusterFacts(db.url);
      const idle = await idleCpu(serverPids, postmasterPid, idleMs); // warm servers, no load

      ctx.log(`scale-out: ${rounds} rounds × ${PROCESSES.length} × ${windowMs} ms`);
      const cpu = Object.fromEntries(PROCESSES.map((n) => [n, cpuSamples()])) as Record<(typeof PROCESSES)[number], CpuSamples>;
      const rate = await interleaved(rounds, Object.fromEntries(PROCESSES.map((n) => [String(n), candidate(d, serverPids, n, windowMs, cpu[n])])));
      const one = rate['1'] as number[];

      const bench = 'scale-out';
      const rows: Row[] = [
        finishRow({ bench, label: 'keyed renew, 1 process', unit: 'renews/s', value: summarize(one) }),
        finishRow({ bench, label: 'CPU per renew, 1 process, all processes', unit: 'µs/renew', value: summarize(cpu[1].total) }),
      ];
      for (const n of PROCESSES.slice(1)) rows.push(pairedRow(bench, `keyed renew, ${label(n)}`, 'renews/s', rate[String(n)] as number[], label(1), one));
      for (const n of PROCESSES.slice(1)) {
        rows.push(pairedRow(bench, `CPU per renew, ${label(n)}`, 'µs/renew', cpu[n].total, label(1), cpu[1].total, n === 3 ? ratioTarget('<=', 1.2) : undefined));
      }
      const idleWhileLoaded = [...cpu[1].idleServerMsPerS, ...cpu[2].idleServerMsPerS];
      const idleMsPerS = idleWhileLoaded.length ? median(idleWhileLoaded) : median(idle.servers);
      // What N − 1 extra processes' own background work would add per renew, at the N-process rate.
      const background = (n: number) => ((n - 1) * idleMsPerS * 1000) / median(rate[String(n)] as number[]);
      return {
        rows,
        notes: [
          `${WORKERS} workers, closed loops, each renewing a space claim of its own (acquired once for 600 s: lh.space(…).run(…, { holder }).claim(key).acquire(), then lease.renew(), which sends an Idempotency-Key as the SDK always does), split evenly over the first N servers (worker w → server w mod N, one Leasehold client per server URL, ${SDK_BUILD}); ${rounds} rounds × ${windowMs} ms windows${warmMs > 0 ? ` after a ${warmMs} ms warm-up of each N` : ''}, order rotating`,
          `servers: packages/server/dist/cli.js --store postgres://…/<db> --pool-size ${POOL_SIZE} ×${servers.length}, all on one database of one throwaway cluster (fsync, synchronous_commit and full_page_writes off), real clock, request log at info to a drained pipe, background sweep on in all three throughout; ${backends} backends open on the database after the warm-up`,
          `machine: ${cores} cores (os.availableParallelism()), load average at start ${loadAtStart}; ${cores <= 2 ? `on ${cores} cores the N servers, the cluster's backends and the driver compete for the same ${cores} CPUs, so a ratio here is as much the machine's scheduling as the servers' cost` : 'every process has CPUs of its own only while the processes are fewer than the cores'}`,
          'CPU: utime+stime over each window — the driver child (process.cpuUsage), the N servers in use (/proc/<pid>/stat) and every process of the cluster (the postmaster with its reaped children and all its live children); the servers not in use are left out of the total, their sweeps land in the cluster figure of every N alike',
          `CPU per renew, medians: ${PROCESSES.map((n) => parts(n, cpu[n])).join('; ')}`,
          `idle, ${warmMs > 0 ? 'after the warm-up, ' : ''}no load (${idleMs} ms): servers ${idle.servers.map((ms) => fmt(ms, 1)).join(', ')} ms CPU/s, cluster ${fmt(idle.postgres, 1)} ms/s; an idle server while the others renew: median ${idleWhileLoaded.length ? fmt(median(idleWhileLoaded), 1) : '—'} ms/s; so the extra processes' own background work (the sweep and statistics every 1 s) is ≈ ${fmt(background(2), 1)} µs per renew at 2 processes and ≈ ${fmt(background(3), 1)} µs at 3; under load each process also re-reads leasehold.fault_rules at most every 100 ms and its credential once a second (≈ 11 statements/s per process, against thousands of renews/s)`,
        ],
      };
    } finally {
      await driver?.close();
      await Promise.all(servers.map((s) => s.close()));
      cluster.stop();
    }
  },
};
