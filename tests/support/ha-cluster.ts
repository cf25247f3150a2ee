/**
 * A throwaway highly-available PostgreSQL, started from deploy/ha as docs/operating.md
 * ("Running PostgreSQL highly available") runs it: one etcd, two Patroni nodes on Debian's
 * PostgreSQL with synchronous replication, HAProxy routing to the primary by Patroni's `/primary`
 * check. Everything listens on free 127.0.0.1 ports and lives under one temp dir; the files'
 * absolute paths (/var/lib/postgresql/leasehold-ha, /var/run/postgresql) move under it, and the
 * per-node settings come from the environment as node.env sets them. `stop()` kills every process
 * it started and deletes the directory. Debian's patroni, etcd-server and haproxy come from
 * scripts/install-ha.sh (run here when missing).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { ROOT } from './deploy-files.js';
import { freePort, postgresBinDir } from './postgres-cluster.js';
import { killTree, postgresProcesses } from './process-tree.js';

/** A member as Patroni's `GET /cluster` lists it. */
export interface PatroniMember {
  name: string;
  role: 'leader' | 'sync_standby' | 'replica' | string;
  state: string;
  lag?: number | string;
}

/** One Patroni node: its name, ports and data directory. */
export interface HaNode {
  readonly name: string;
  readonly pgPort: number;
  readonly apiPort: number;
  readonly dataDir: string;
}

/** A running HA cluster. */
export interface HaCluster {
  /** The superuser's URL through HAProxy (the current primary). */
  readonly adminUrl: string;
  /** The Leasehold servers' store URL through HAProxy: role and database `leasehold`. */
  readonly storeUrl: string;
  readonly nodes: readonly HaNode[];
  /** Patroni's view of the members, asked of any node that answers. */
  members(): Promise<PatroniMember[]>;
  /** Waits until `ready(members)` holds (polling Patroni every 250 ms), or throws after `timeoutMs` with the last view. */
  waitFor(what: string, ready: (members: PatroniMember[]) => boolean, timeoutMs?: number): Promise<PatroniMember[]>;
  /** The current leader's name (waits for one). */
  leader(): Promise<string>;
  /** SIGKILLs the node's PostgreSQL (postmaster and every backend at once); its Patroni stays. */
  killPostgres(name: string): void;
  /** SIGKILLs the whole node: Patroni and its PostgreSQL, as a machine that dies. */
  killNode(name: string): void;
  /** The node's PostgreSQL processes whose title starts with `postgres: <title>` (e.g. `walreceiver`). */
  processesOf(name: string, title: string): number[];
  /** What each process wrote, for a failure message. */
  logs(): string;
  /** Kills everything and deletes the directory; safe to call twice. */
  stop(): void;
}

const DEPLOY = join(ROOT, 'deploy/ha');
const LEASEHOLD_PASSWORD = 'leasehold-ha-test';

/** The `KEY=value` lines of an env file (comments and blanks skipped). */
export function readEnvFile(path: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const match = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (match) env[match[1]!] = match[2]!;
  }
  return env;
}

function ensureInstalled(): void {
  const missing = ['/usr/bin/patroni', '/usr/bin/etcd', '/usr/sbin/haproxy'].filter((bin) => !existsSync(bin));
  if (missing.length === 0) return;
  spawnSync('bash', [join(ROOT, 'scripts/install-ha.sh')], { stdio: 'inherit' });
  const still = missing.filter((bin) => !existsSync(bin));
  if (still.length > 0) throw new Error(`${still.join(', ')} missing: run scripts/install-ha.sh`);
}

/** Starts etcd, two Patroni nodes and HAProxy; resolves once a leader and a synchronous standby stream and the `leasehold` database exists. */
export async function startHaCluster(options: { synchronous?: boolean } = {}): Promise<HaCluster> {
  ensureInstalled();
  const bin = postgresBinDir();
  const root = mkdtempSync(join(tmpdir(), 'leasehold-ha-'));
  chmodSync(root, 0o755);
  // PostgreSQL refuses to run as root: as root, Patroni (and so PostgreSQL) runs as `postgres`.
  const asRoot = process.getuid?.() === 0;
  const uid = asRoot ? Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim()) : undefined;
  const gid = asRoot ? Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim()) : undefined;
  const own = (dir: string) => {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (uid !== undefined && gid !== undefined) chownSync(dir, uid, gid);
  };
  own(join(root, 'run'));
  const children: { name: string; child: ChildProcess; output: string[] }[] = [];
  const launch = (name: string, command: string, args: string[], env: Record<string, string>) => {
    const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const entry = { name, child, output: [] as string[] };
    const keep = (chunk: Buffer) => {
      entry.output.push(chunk.toString('utf8'));
      if (entry.output.length > 400) entry.output.splice(0, 200);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    children.push(entry);
    return child;
  };

  // etcd, with deploy/ha/etcd.env's variables on this run's ports and directory.
  const [etcdClient, etcdPeer] = [await freePort(), await freePort()];
  const etcdEnv = readEnvFile(join(DEPLOY, 'etcd.env'));
  const onPorts = (text: string) => text.replaceAll(':2379', `:${etcdClient}`).replaceAll(':2380', `:${etcdPeer}`);
  launch('etcd', '/usr/bin/etcd', [], {
    ...Object.fromEntries(Object.entries(etcdEnv).map(([key, value]) => [key, onPorts(value)])),
    ETCD_DATA_DIR: join(root, 'etcd'),
  });

  // Patroni: deploy/ha/patroni.yml with its absolute paths under the temp dir; node.env per node.
  const config = readFileSync(join(DEPLOY, 'patroni.yml'), 'utf8')
    .replaceAll('/var/lib/postgresql/leasehold-ha', root)
    .replaceAll('/var/run/postgresql', join(root, 'run'))
    .replaceAll('/usr/lib/postgresql/15/bin', bin)
    .replace(/^( *synchronous_mode: )true$/m, `$1${options.synchronous === false ? 'false' : 'true'}`)
    // Asynchronous on purpose (the measurement of what it loses): let Patroni promote however far behind.
    .replace(/^( *maximum_lag_on_failover: )\d+$/m, (line, head: string) => (options.synchronous === false ? `${head}1099511627776` : line));
  if (options.synchronous === false && !/^ *synchronous_mode: false$/m.test(config)) throw new Error('deploy/ha/patroni.yml: no `synchronous_mode: true` line to turn off');
  const configPath = join(root, 'patroni.yml');
  writeFileSync(configPath, config);
  chmodSync(configPath, 0o644);
  const nodeEnv = readEnvFile(join(DEPLOY, 'node.env'));
  const nodes: HaNode[] = [];
  for (const name of ['node1', 'node2']) {
    nodes.push({ name, pgPort: await freePort(), apiPort: await freePort(), dataDir: join(root, name) });
    own(join(root, name));
  }
  const envOf = (node: HaNode): Record<string, string> => ({
    ...nodeEnv,
    PATRONI_NAME: node.name,
    PATRONI_RESTAPI_LISTEN: `127.0.0.1:${node.apiPort}`,
    PATRONI_RESTAPI_CONNECT_ADDRESS: `127.0.0.1:${node.apiPort}`,
    PATRONI_POSTGRESQL_LISTEN: `127.0.0.1:${node.pgPort}`,
    PATRONI_POSTGRESQL_CONNECT_ADDRESS: `127.0.0.1:${node.pgPort}`,
    PATRONI_POSTGRESQL_DATA_DIR: node.dataDir,
    PATRONI_POSTGRESQL_PGPASS: join(root, 'run', `${node.name}.pgpass`),
    PATRONI_ETCD3_HOSTS: `127.0.0.1:${etcdClient}`,
    PATRONI_LOG_LEVEL: 'INFO',
    HOME: root,
  });
  const patronis = new Map<string, ChildProcess>();
  const startNode = (name: string) => {
    const node = nodes.find((n) => n.name === name)!;
    const [command, args] = asRoot ? ['runuser', ['-u', 'postgres', '--', '/usr/bin/patroni', configPath]] : ['/usr/bin/patroni', [configPath]];
    patronis.set(name, launch(name, command as string, args as string[], envOf(node)));
  };

  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    // One SIGKILL for all, so no Patroni restarts a PostgreSQL meanwhile; twice, for one it did.
    for (let round = 0; round < 2; round++) {
      killTree([...children.flatMap(({ child }) => (child.pid === undefined ? [] : [child.pid])), ...nodes.flatMap((node) => postgresProcesses(node.dataDir))]);
    }
    rmSync(root, { recursive: true, force: true });
    process.removeListener('exit', stop);
  };
  process.once('exit', stop);
  const logs = () => children.map(({ name, output }) => `--- ${name}\n${output.join('').slice(-6000)}`).join('\n');

  const members = async (): Promise<PatroniMember[]> => {
    for (const node of nodes) {
      try {
        const response = await fetch(`http://127.0.0.1:${node.apiPort}/cluster`, { signal: AbortSignal.timeout(1000) });
        if (response.ok) return ((await response.json()) as { members: PatroniMember[] }).members;
      } catch {
        // that node is down: ask the next
      }
    }
    return [];
  };
  const waitFor = async (what: string, ready: (m: PatroniMember[]) => boolean, timeoutMs = 90_000) => {
    const deadline = Date.now() + timeoutMs;
    let last: PatroniMember[] = [];
    while (Date.now() < deadline) {
      last = await members();
      if (ready(last)) return last;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error(`HA cluster: no ${what} after ${timeoutMs} ms; members ${JSON.stringify(last)}\n${logs()}`);
  };
  const leader = async () => (await waitFor('leader', (m) => m.some((x) => x.role === 'leader' && x.state === 'running'))).find((x) => x.role === 'leader')!.name;

  try {
    startNode('node1');
    await waitFor('leader', (m) => m.some((x) => x.role === 'leader' && x.state === 'running'));
    startNode('node2');
    const standbyRole = options.synchronous === false ? 'replica' : 'sync_standby';
    await waitFor(`${standbyRole} running`, (m) => m.some((x) => x.role === standbyRole && x.state === 'running'));

    const haPort = await freePort();
    const haEnv: Record<string, string> = { HA_LISTEN: `127.0.0.1:${haPort}` };
    nodes.forEach((node, i) => {
      haEnv[`HA_NODE${i + 1}_PG`] = `127.0.0.1:${node.pgPort}`;
      haEnv[`HA_NODE${i + 1}_API_HOST`] = '127.0.0.1';
      haEnv[`HA_NODE${i + 1}_API_PORT`] = String(node.apiPort);
    });
    launch('haproxy', '/usr/sbin/haproxy', ['-db', '-f', join(DEPLOY, 'haproxy.cfg')], haEnv);

    const superuser = encodeURIComponent(nodeEnv.PATRONI_SUPERUSER_PASSWORD ?? '');
    const adminUrl = `postgres://postgres:${superuser}@127.0.0.1:${haPort}/postgres`;
    await provision(adminUrl);
    const storeUrl = `postgres://leasehold:${LEASEHOLD_PASSWORD}@127.0.0.1:${haPort}/leasehold`;
    return {
      adminUrl,
      storeUrl,
      nodes,
      members,
      waitFor,
      leader,
      killPostgres: (name) => killTree(postgresProcesses(nodes.find((n) => n.name === name)!.dataDir)),
      killNode: (name) => {
        const node = nodes.find((n) => n.name === name)!;
        const patroni = patronis.get(name);
        killTree([...(patroni?.pid === undefined ? [] : [patroni.pid]), ...postgresProcesses(node.dataDir)]);
      },
      processesOf: (name, title) => postgresProcesses(nodes.find((n) => n.name === name)!.dataDir, title),
      logs,
      stop,
    };
  } catch (error) {
    const text = logs();
    stop();
    throw (error as Error).message.includes('\n--- ') ? error : new Error(`${(error as Error).message}\n${text}`);
  }
}

/** Creates the `leasehold` role and database through HAProxy, as docs/operating.md does with psql (retried while HAProxy's first check is pending). */
async function provision(adminUrl: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 2000 });
    try {
      await client.connect();
      const role = await client.query("SELECT 1 FROM pg_roles WHERE rolname = 'leasehold'");
      if (role.rowCount === 0) await client.query(`CREATE ROLE leasehold LOGIN PASSWORD '${LEASEHOLD_PASSWORD}'`);
      const database = await client.query("SELECT 1 FROM pg_database WHERE datname = 'leasehold'");
      if (database.rowCount === 0) await client.query('CREATE DATABASE leasehold OWNER leasehold');
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    } finally {
      await client.end().catch(() => {});
    }
  }
}
