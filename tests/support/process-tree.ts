/**
 * Processes by their place in the tree, read from Linux's /proc: a PostgreSQL's postmaster (from
 * its data directory's postmaster.pid) and its children, and SIGKILL of whole trees at once —
 * what a machine that dies does to them.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Every live process as pid → parent pid. */
function parents(): Map<number, number> {
  const tree = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // The field after the parenthesised command: state, then the parent's pid.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      tree.set(Number(name), ppid);
    } catch {
      // exited meanwhile
    }
  }
  return tree;
}

/** `pids` and all their descendants. */
export function withDescendants(pids: readonly number[]): number[] {
  const tree = parents();
  const found = new Set(pids.filter((pid) => tree.has(pid)));
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, ppid] of tree) {
      if (found.has(ppid) && !found.has(pid)) {
        found.add(pid);
        grew = true;
      }
    }
  }
  return [...found];
}

/** SIGKILLs `pids` and every descendant of theirs, all collected before the first signal. */
export function killTree(pids: readonly number[]): void {
  for (const pid of withDescendants(pids)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/**
 * The postmaster of the PostgreSQL running on `dataDir` and its children, or only those whose
 * process title names `title` (`walreceiver`, `walsender`…); none when it is down.
 */
export function postgresProcesses(dataDir: string, title?: string): number[] {
  let postmaster: number;
  try {
    postmaster = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return [];
  }
  // A postmaster.pid a SIGKILL left behind may name a pid reused since by another process.
  let command = '';
  try {
    command = readFileSync(`/proc/${postmaster}/cmdline`, 'utf8');
  } catch {
    return [];
  }
  if (!command.split('\0')[0]!.endsWith('postgres')) return [];
  const all = withDescendants([postmaster]);
  if (title === undefined) return all;
  return all.filter((pid) => {
    try {
      // `postgres: <cluster_name>: walreceiver …` when cluster_name is set (Patroni sets it), else `postgres: walreceiver …`.
      return /^postgres: (?:[^:\s]+: )?(\S+)/.exec(readFileSync(`/proc/${pid}/cmdline`, 'utf8'))?.[1] === title;
    } catch {
      return false;
    }
  });
}
