/**
 * CPU time of other processes, read from `/proc/<pid>/stat` (Linux): a server child by its pid,
 * and every process of a PostgreSQL cluster — the postmaster and all its children (backends,
 * WAL writer, checkpointer, autovacuum …), found by their parent pid. A child that exited and
 * was reaped during a window still counts: the kernel adds its time to the postmaster's
 * `cutime`/`cstime`.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';

let ticksPerSecond: number | undefined;

/** Clock ticks per second of `/proc/<pid>/stat`'s times (`getconf CLK_TCK`, 100 on Linux). */
function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    const answer = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    ticksPerSecond = Number.isFinite(answer) && answer > 0 ? answer : 100;
  }
  return ticksPerSecond;
}

/** A process's `stat` line as fields after its `(comm)`: `[state, ppid, …]` (undefined when it is gone). */
function statFields(pid: number): string[] | undefined {
  let line: string;
  try {
    line = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // comm may hold spaces and parentheses: the fields start after the last ')'.
  return line.slice(line.lastIndexOf(')') + 2).split(' ');
}

/** stat fields (after comm, 0-based): ppid 1, utime 11, stime 12, cutime 13, cstime 14. */
const PPID = 1;
const UTIME = 11;

function ticksOf(fields: string[] | undefined, withReapedChildren: boolean): number {
  if (fields === undefined) return 0;
  const own = Number(fields[UTIME]) + Number(fields[UTIME + 1]);
  return withReapedChildren ? own + Number(fields[UTIME + 2]) + Number(fields[UTIME + 3]) : own;
}

/** User + system CPU of one process (every thread), in ms; 0 once it is gone. */
export function processCpuMs(pid: number): number {
  return (ticksOf(statFields(pid), false) * 1000) / clockTicks();
}

/** The parent pid of `pid` (e.g. a backend's postmaster). */
export function parentPid(pid: number): number {
  const fields = statFields(pid);
  if (fields === undefined) throw new Error(`no process ${pid}`);
  return Number(fields[PPID]);
}

/**
 * CPU of a whole cluster in ms: the postmaster (with its reaped children) plus every live child
 * of it. Scans `/proc` once (a few ms for a few hundred processes): take it outside the timed work.
 */
export function clusterCpuMs(postmasterPid: number): number {
  let ticks = ticksOf(statFields(postmasterPid), true);
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === postmasterPid) continue;
    const fields = statFields(pid);
    if (fields !== undefined && Number(fields[PPID]) === postmasterPid) ticks += ticksOf(fields, false);
  }
  return (ticks * 1000) / clockTicks();
}

/** The pid of a database's cluster postmaster (the parent of a backend) and the database's other open backends. */
export async function clusterFacts(url: string): Promise<{ postmasterPid: number; backends: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number; backends: number }>(
      'SELECT pg_backend_pid() AS pid, (SELECT count(*)::int FROM pg_stat_activity WHERE datname = current_database()) AS backends',
    );
    return { postmasterPid: parentPid(rows[0]?.pid as number), backends: (rows[0]?.backends ?? 1) - 1 };
  } finally {
    await client.end();
  }
}
