// `pnpm demo`: a fleet of workers sharing tasks, queue messages and contended keys through
// Leasehold leases, under injected faults, ending with an exactly-once audit.
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { Leasehold } from '@leasehold/client';
import { createLeaseholdServer, listen, openStore } from '@leasehold/server';
import { embeddedControls, faultTimeline, remoteControls, type FaultControls } from './faults.js';
import { Fleet } from './fleet.js';
import { FencedLedger, type WorkKind } from './ledger.js';
import { progressView } from './progress.js';
import { ReplicaSet } from './replicas.js';
import type { WorkerConfig } from './protocol.js';
import { seedWorkload } from './seed.js';
import { summarize } from './summary.js';

const USAGE = `Usage: pnpm demo [--url URL --api-key KEY | --store memory|postgres://…|/DIR|./DIR [--replicas N --kill-every 5s]] [--workers 8] [--python 0] [--tasks 200] [--messages 500] [--keys 50] [--no-faults] [--stall-ms 12000] [--timeout 180]

Without --url the reference server runs in this process (real clock) on --store (default
memory; also LEASEHOLD_STORE: a postgres:// URL or a directory for the embedded store). With --url the fleet
works against that server; faults need it to be started with --control.
With --replicas N (a postgres:// store) N server processes run on the store behind nginx
(deploy/nginx, each started as deploy/systemd starts it); --kill-every kills a random one —
SIGKILL or SIGTERM — that often and restarts it; the audit at the end covers the whole run.
With --python N, N more workers run the Python SDK (packages/python, Debian's python3 with
python3-httpx; LEASEHOLD_PYTHON names another interpreter) on the same space, tasks and queue.`;

const FLAGS = {
  url: { type: 'string' },
  store: { type: 'string' },
  'api-key': { type: 'string', default: 'lh_test_admin' },
  workers: { type: 'string', default: '8' },
  python: { type: 'string', default: '0' },
  tasks: { type: 'string', default: '200' },
  messages: { type: 'string', default: '500' },
  keys: { type: 'string', default: '50' },
  'no-faults': { type: 'boolean', default: false },
  'stall-ms': { type: 'string', default: '12000' },
  replicas: { type: 'string' },
  'kill-every': { type: 'string' },
  timeout: { type: 'string', default: '180' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

/** The flags, or the usage and exit 2 on an unknown or incomplete one (never Node's parser text or a stack trace); a leading `--` (`pnpm demo -- --help`) is skipped. */
function parseFlags() {
  const argv = process.argv.slice(2);
  try {
    return parseArgs({ args: argv[0] === '--' ? argv.slice(1) : argv, options: FLAGS }).values;
  } catch (error) {
    const message = (error as Error).message.replace(/\. To specify a positional argument.*$/s, '').replace(/^Unknown option '([^']+)'$/, 'unknown option $1')
      .replace(/^Option '(\S+) <value>' argument missing$/, '$1 needs a value');
    console.error(`pnpm demo: ${message}\n\n${USAGE}`);
    process.exit(2);
  }
}

const values = parseFlags();
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const count = (name: string, value: string | undefined, min: number) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) {
    console.error(`--${name} must be an integer ≥ ${min}\n\n${USAGE}`);
    process.exit(2);
  }
  return n;
};
const pythonWorkers = count('python', values.python, 0);
const workers = count('workers', values.workers, pythonWorkers > 0 ? 0 : 1);
const sizes = { tasks: count('tasks', values.tasks, 0), messages: count('messages', values.messages, 0), keys: count('keys', values.keys, 0) };
const timeoutMs = count('timeout', values.timeout, 1) * 1000;
const HEARTBEAT_TTL_SECONDS = 6;
const QUEUE_LEASE_SECONDS = 8;
const STALL_MS = count('stall-ms', values['stall-ms'], 0);
const replicas = values.replicas === undefined ? undefined : count('replicas', values.replicas, 1);
/** `5s`, `500ms`, `1m` or bare milliseconds, in seconds (`undefined`: no such duration). */
const seconds = (text: string): number | undefined => {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text.trim());
  if (!match) return undefined;
  const n = Number(match[1]);
  return match[2] === 's' ? n : match[2] === 'm' ? n * 60 : n / 1000;
};
const killEverySeconds = values['kill-every'] === undefined ? undefined : seconds(values['kill-every']);
if (killEverySeconds !== undefined && !(killEverySeconds >= 0.5)) {
  console.error(`--kill-every must be a duration of at least 500ms (e.g. 5s)\n\n${USAGE}`);
  process.exit(2);
}
if (values['kill-every'] !== undefined && killEverySeconds === undefined) {
  console.error(`--kill-every must be a duration (e.g. 5s)\n\n${USAGE}`);
  process.exit(2);
}

async function main(): Promise<number> {
  let baseUrl = values.url?.replace(/\/+$/, '');
  let controls: FaultControls | undefined;
  let closeServer = async () => {};
  let replicaSet: ReplicaSet | undefined;
  if (replicas !== undefined) {
    const storeName = values.store ?? process.env.LEASEHOLD_STORE ?? '';
    if (!/^postgres(ql)?:\/\//.test(storeName) || values.url !== undefined) {
      console.error(`--replicas needs --store postgres://… (processes share one database) and no --url\n\n${USAGE}`);
      return 2;
    }
    replicaSet = await ReplicaSet.start(storeName, replicas, (line) => console.log(`  replicas: ${line}`));
    baseUrl = replicaSet.url;
    controls = await remoteControls(baseUrl);
    const set = replicaSet;
    closeServer = () => set.stop();
    console.log(`${replicas} server processes (ports ${set.upstreams.join(', ')}) on one PostgreSQL behind nginx at ${baseUrl}`);
  } else if (!baseUrl) {
    const storeName = values.store ?? process.env.LEASEHOLD_STORE ?? 'memory';
    const server = createLeaseholdServer({ store: await openStore(storeName, { clock: 'real' }) });
    const listener = await listen(server, { port: 0 });
    baseUrl = listener.url;
    controls = embeddedControls(server.control);
    closeServer = async () => {
      await listener.close();
      await server.close();
    };
    console.log(`Reference server (in process) at ${baseUrl}, store ${server.store.kind}`);
  } else {
    controls = await remoteControls(baseUrl);
    console.log(`Using the server at ${baseUrl}${controls ? '' : ' (no /_control: faults are off)'}`);
  }
  if (values['no-faults']) controls = undefined;

  const apiKey = values['api-key']!;
  const admin = new Leasehold({ baseUrl, apiKey });
  const spool = `demo-${Date.now().toString(36)}`;
  console.log(`Seeding ${sizes.tasks} tasks, ${sizes.messages} messages and ${sizes.keys} keys…`);
  const workload = await seedWorkload(admin, sizes, { spool, queue: 'jobs', leaseTimeoutSeconds: QUEUE_LEASE_SECONDS });
  await admin.close();

  const ledger = new FencedLedger();
  ledger.expect('task', workload.taskIds.map(String));
  ledger.expect('message', workload.messageIds);
  ledger.expect('key', workload.keys);

  const spaceId = randomUUID();
  const runId = randomUUID();
  const configs: WorkerConfig[] = Array.from({ length: workers + pythonWorkers }, (_, i) => ({
    workerId: i < workers ? `worker-${i + 1}` : `python-${i - workers + 1}`,
    runtime: i < workers ? ('node' as const) : ('python' as const),
    baseUrl: baseUrl!,
    apiKey,
    spaceId,
    runId,
    taskIds: workload.taskIds,
    keys: workload.keys,
    spool: workload.spool,
    queue: workload.queue,
    heartbeatTtlSeconds: HEARTBEAT_TTL_SECONDS,
    taskConcurrency: 3,
    workMs: { task: 2000, message: 400, key: 1500 },
    seed: 1000 + i,
  }));

  const totals: Record<WorkKind, number> = { task: sizes.tasks, message: sizes.messages, key: sizes.keys };
  const view = progressView({ tasks: totals.task, messages: totals.message, keys: totals.key });
  const fleet = new Fleet(configs, ledger);
  await fleet.ready;
  const started = Date.now();
  const stalled = configs[Math.min(2, configs.length - 1)]!.workerId;
  const faults: string[] = [];
  const timers = controls
    ? faultTimeline(controls, (ms) => fleet.stall(stalled, ms), STALL_MS, view.log).map((step) =>
        setTimeout(() => {
          faults.push(step.label);
          view.log(`fault at ${(step.atMs / 1000).toFixed(1)} s: ${step.label}${step.label.includes('stalls') ? ` (${stalled})` : ''}`);
          Promise.resolve(step.run()).catch((error: unknown) => view.log(`  fault failed: ${(error as Error).message}`));
        }, step.atMs),
      )
    : [];

  if (replicaSet !== undefined && killEverySeconds !== undefined) replicaSet.chaos(killEverySeconds * 1000);

  const done = () => ({ tasks: ledger.doneCount('task'), messages: ledger.doneCount('message'), keys: ledger.doneCount('key') });
  await new Promise<void>((resolve) => {
    const tick = setInterval(() => {
      const now = done();
      view.update(now);
      const finished = now.tasks === totals.task && now.messages === totals.message && now.keys === totals.key;
      if (finished || Date.now() - started > timeoutMs) {
        clearInterval(tick);
        resolve();
      }
    }, 100);
  });
  for (const timer of timers) clearTimeout(timer);
  view.update(done());
  view.stop();
  await fleet.stop();
  await closeServer();

  const chaos = replicaSet?.tally;
  const summary = summarize({
    ledger,
    reports: fleet.reports,
    losses: fleet.losses,
    crashed: fleet.crashed,
    faults,
    elapsedMs: Date.now() - started,
    workers,
    pythonWorkers,
    chaos:
      chaos === undefined ? undefined : (
        `${replicas} server processes; ${chaos.sigkill} SIGKILLed, ${chaos.sigterm} SIGTERMed, ${chaos.restarts} restarted` +
        (chaos.failedStarts > 0 ? ` (${chaos.failedStarts} start attempts retried)` : '')
      ),
  });
  console.log(`\n${summary.lines.join('\n')}`);
  return summary.ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
