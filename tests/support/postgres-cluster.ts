/**
 * A throwaway PostgreSQL cluster for tests and benchmarks: Debian's binaries
 * (`/usr/lib/postgresql/<v>/bin`, installed by `scripts/install-postgres.sh` when missing),
 * `initdb` and `pg_ctl` run as the `postgres` user when we are root (initdb refuses root), the
 * data directory under a fresh temp dir, listening on 127.0.0.1 on a free port, stopped and
 * deleted by `stop()`. Never a shared or system cluster.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A running throwaway cluster. */
export interface PostgresCluster {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust auth, loopback only). */
  readonly url: string;
  /** The port it listens on. */
  readonly port: number;
  /** A URL of another database of the cluster. */
  urlOf(database: string): string;
  /** Stop the server (immediate mode) and delete its data directory; safe to call twice. */
  stop(): void;
  /** Take the server down at once (immediate mode: connections dropped), keeping its data. */
  halt(): void;
  /** Start a halted server again, on the same port and data. */
  resume(): void;
}

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The newest `/usr/lib/postgresql/<v>/bin`, installing Debian's package first when none exists. */
export function postgresBinDir(): string {
  const find = (): string | undefined => {
    const base = '/usr/lib/postgresql';
    if (!existsSync(base)) return undefined;
    const versions = readdirSync(base)
      .filter((v) => existsSync(join(base, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    return versions[0] === undefined ? undefined : join(base, versions[0], 'bin');
  };
  let dir = find();
  if (dir === undefined) {
    spawnSync('bash', [join(repoRoot, 'scripts/install-postgres.sh')], { stdio: 'inherit' });
    dir = find();
  }
  if (dir === undefined) throw new Error('PostgreSQL binaries not found under /usr/lib/postgresql/*/bin: run scripts/install-postgres.sh');
  return dir;
}

/** A free TCP port on 127.0.0.1 (bound and released; a tiny race is accepted). */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

/** Start a throwaway cluster (about a second: initdb with fsync off, then pg_ctl start -w). */
export async function startPostgresCluster(options: { maxConnections?: number; durable?: boolean } = {}): Promise<PostgresCluster> {
  const bin = postgresBinDir();
  const root = mkdtempSync(join(tmpdir(), 'leasehold-pg-'));
  const data = join(root, 'data');
  const asRoot = process.getuid?.() === 0;
  const pgUser = asRoot ? Number(execFileSync('id', ['-u', 'postgres']).toString().trim()) : undefined;
  const pgGroup = asRoot ? Number(execFileSync('id', ['-g', 'postgres']).toString().trim()) : undefined;
  chmodSync(root, 0o755);
  if (pgUser !== undefined && pgGroup !== undefined) chownSync(root, pgUser, pgGroup);
  const run = (tool: string, args: string[]) => {
    const command = asRoot ? 'runuser' : join(bin, tool);
    const argv = asRoot ? ['-u', 'postgres', '--', join(bin, tool), ...args] : args;
    const result = spawnSync(command, argv, { cwd: root, encoding: 'utf8' });
    if (result.status !== 0) {
      throw new Error(`${tool} failed (${result.status}): ${result.stderr || result.stdout}`);
    }
  };
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const port = await freePort();
  const settings = [
    `-p ${port}`,
    '-c listen_addresses=127.0.0.1',
    `-c unix_socket_directories=${root}`,
    `-c max_connections=${options.maxConnections ?? 200}`,
    // Fast and not crash-safe by default; `durable` keeps PostgreSQL's defaults, for tests that
    // halt the server (`synchronous_commit=off` would lose commits already answered).
    ...(options.durable === true ? [] : ['-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off']),
    '-c shared_buffers=64MB',
  ].join(' ');
  const startServer = () => run('pg_ctl', ['-D', data, '-o', settings, '-l', join(root, 'server.log'), '-w', '-t', '60', 'start']);
  startServer();
  let stopped = false;
  let halted = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    try {
      if (!halted) run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    } finally {
      rmSync(root, { recursive: true, force: true });
      process.removeListener('exit', stop);
    }
  };
  process.once('exit', stop);
  const urlOf = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  const halt = () => {
    if (halted || stopped) return;
    run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    halted = true;
  };
  const resume = () => {
    if (!halted || stopped) return;
    startServer();
    halted = false;
  };
  return { url: urlOf('postgres'), port, urlOf, stop, halt, resume };
}
