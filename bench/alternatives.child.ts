/**
 * The driver child of `alternatives.ts`: opens one system (`lib/alternative-systems.ts`; argv[2]
 * is its JSON `DriverChildArgs`), prints `{"ready":true}`, then answers every `WindowCommand`
 * line on stdin with one `WindowResult` line: `workers` closed loops of one operation for
 * `windowMs`, and the CPU spent meanwhile by this process, the server child or children (if
 * any) and every process of the PostgreSQL cluster. Tears the system down and exits when stdin ends.
 */
import { createInterface } from 'node:readline';
import { openSystem, type DriverConfig } from './lib/alternative-systems.js';
import { clusterCpuMs, processCpuMs } from './lib/proc-cpu.js';

/** What the parent passes: the system, the pids whose CPU counts, the workers. */
export type DriverChildArgs = DriverConfig & {
  /** The cluster's postmaster: its every process counts. */
  postmasterPid: number;
  /** The server child whose CPU counts too (Leasehold), if any. */
  serverPid?: number | undefined;
  /** Server children whose CPU is reported one by one (`scale-out`), if any. */
  serverPids?: number[] | undefined;
  workers: number;
};

/** One measurement: operation `op` of the system, for `windowMs`. */
export interface WindowCommand {
  op: string;
  windowMs: number;
}

/** What one window did and cost. */
export interface WindowResult {
  /** Operations completed in the window. */
  ops: number;
  seconds: number;
  /** CPU ms in the window: this driver process, the server child (0 when none), the cluster; `servers`: each of `serverPids`. */
  cpuMs: { driver: number; server: number; postgres: number; servers?: number[] };
  /** Receives or fetches that came back empty in the window (asked again). */
  misses: number;
}

const args = JSON.parse(process.argv[2] ?? '') as DriverChildArgs;
const system = await openSystem(args);
const workers = Array.from({ length: args.workers }, (_, w) => w);

function othersCpuMs(): { server: number; postgres: number; servers: number[] } {
  return {
    server: args.serverPid === undefined ? 0 : processCpuMs(args.serverPid),
    postgres: clusterCpuMs(args.postmasterPid),
    servers: (args.serverPids ?? []).map(processCpuMs),
  };
}

async function measure(command: WindowCommand): Promise<WindowResult> {
  const op = system.ops[command.op];
  if (op === undefined) throw new Error(`${args.system} has no operation ${command.op}`);
  await Promise.all(workers.map((w) => op(w))); // one warm call each, outside the window
  const misses0 = system.misses();
  // The /proc scans happen outside the timed loop and outside this process's own CPU reading.
  const others0 = othersCpuMs();
  const self0 = process.cpuUsage();
  const t0 = performance.now();
  const until = t0 + command.windowMs;
  let ops = 0;
  await Promise.all(
    workers.map(async (w) => {
      while (performance.now() < until) {
        await op(w);
        ops++;
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const self = process.cpuUsage(self0);
  const others1 = othersCpuMs();
  return {
    ops,
    seconds,
    cpuMs: {
      driver: (self.user + self.system) / 1000,
      server: others1.server - others0.server,
      postgres: others1.postgres - others0.postgres,
      ...(args.serverPids === undefined ? {} : { servers: others1.servers.map((ms, i) => ms - (others0.servers[i] ?? 0)) }),
    },
    misses: system.misses() - misses0,
  };
}

process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() === '') continue;
  process.stdout.write(`${JSON.stringify(await measure(JSON.parse(line) as WindowCommand))}\n`);
}
await system.close();
process.exit(0); // a pool's idle timer must not keep the parent waiting
