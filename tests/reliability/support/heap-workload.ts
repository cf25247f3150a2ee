/**
 * The long run of the hygiene suite's heap check, driven from the test through a real client
 * over HTTP against a server in its own process (`fixtures/heap-server.ts`): space claims
 * (acquire, renew, heartbeat with details, release with an observation, some left to expire,
 * runs started and cancelled), task claims (claim, release) and spool messages (send, receive,
 * ack / nack / left to expire).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Leasehold } from '../../../packages/client/src/index.js';
import { exited, fixture, REPO_ROOT } from './children.js';

const DAY = 24 * 60 * 60_000;

/** The server process: its URL and its levers over IPC. */
export interface HeapServer {
  url: string;
  advance(ms: number): Promise<number>;
  stats(): Promise<Record<string, number>>;
  /** heapUsed after full GCs (idempotency records expire lazily: `stats()` first, so due ones are gone). */
  heap(): Promise<number>;
  close(): Promise<void>;
}

/** Forks `fixtures/heap-server.ts` with `--expose-gc` and waits until it listens. */
export async function startHeapServer(): Promise<HeapServer> {
  const child: ChildProcess = fork(fixture('heap-server.ts'), [], {
    cwd: REPO_ROOT,
    execArgv: ['--expose-gc', '--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  const pending = new Map<number, (answer: Record<string, unknown>) => void>();
  let next = 1;
  const ready = new Promise<void>((resolve, reject) => {
    child.once('close', (code) => reject(new Error(`heap server exited ${code}: ${stderr.slice(-2000)}`)));
    child.on('message', (message: { id: number; ready?: boolean }) => {
      if (message.ready) resolve();
      pending.get(message.id)?.(message as Record<string, unknown>);
      pending.delete(message.id);
    });
  });
  const call = <T>(type: string, extra: Record<string, unknown> = {}): Promise<T> =>
    new Promise((resolve) => {
      const id = next++;
      pending.set(id, resolve as (answer: Record<string, unknown>) => void);
      child.send({ id, type, ...extra });
    });
  await ready;
  const { url } = await call<{ url: string }>('url');
  return {
    url,
    advance: async (ms) => (await call<{ now: number }>('advance', { ms })).now,
    stats: async () => (await call<{ stats: Record<string, number> }>('stats')).stats,
    heap: async () => {
      await call('stats');
      return (await call<{ heapUsed: number }>('heap')).heapUsed;
    },
    close: async () => {
      child.disconnect();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited(child);
      clearTimeout(timer);
    },
  };
}

/** What one measured run found. */
export interface HeapRun {
  cycles: number;
  baseline: number;
  /** Live heap (after GC) at the end of the run, before anything expired. */
  peak: number;
  final: number;
  stats: Record<string, number>;
}

/**
 * `repeated`: cycles reuse 16 keys, with task claims and spool messages too. `distinct`: space
 * claims only, every cycle on a key never used before. A warm-up round of the same workload comes
 * before the baseline; after each round the clock passes every lease, tombstone (10 min) and
 * idempotency record (24 h), and the messages left are settled.
 */
export async function heapRun(mode: 'repeated' | 'distinct', cycles: number): Promise<HeapRun> {
  const server = await startHeapServer();
  const client = () => new Leasehold({ baseUrl: server.url, apiKey: 'lh_test_admin', heartbeatTtlSeconds: 30, maxRetries: 0 });
  try {
    const setup = client();
    const taskIds: number[] = [];
    for (let i = 0; i < 50; i++) taskIds.push((await setup.tasks.create({ title: `heap task ${i}` })).task.id);
    await setup.spool('heap').create();
    await setup.spool('heap').queue('jobs').put({ leaseTimeoutSeconds: 30 });
    await setup.close();
    const spaceId = randomUUID();

    const expireEverything = async () => {
      await server.advance(DAY + 11 * 60_000);
      const sweeper = client();
      const queue = sweeper.spool('heap').queue('jobs');
      for (let m = await queue.receive(); m !== null; m = await queue.receive()) await m.ack();
      await sweeper.close();
      await server.advance(DAY + 11 * 60_000);
    };

    const round = async (tag: string, n: number): Promise<number> => {
      const lh = client();
      let run = lh.space(spaceId).run(randomUUID(), { holder: `heap-${tag}` });
      for (let i = 0; i < n; i++) {
        // A new run every 100 cycles; every other run is cancelled when it ends. Half a minute
        // passes between runs, so the claims left to expire free their keys again (the server
        // stores only answers of operations that executed: a round of refused acquires holds nothing).
        if (i % 100 === 0 && i > 0) {
          if (i % 200 === 0) await run.cancel();
          await server.advance(31_000);
          run = lh.space(spaceId).run(randomUUID(), { holder: `heap-${tag}` });
        }
        const key = mode === 'distinct' ? `jobs/${tag}/${i}` : `hot/${i % 16}`;
        const lease = await run.claim(key).tryAcquire();
        if (lease) {
          if (i % 4 === 0) await lease.renew();
          if (i % 20 === 0) await lh.heartbeat({ ttl: 30, details: { done: i, of: n } });
          // Every seventh claim is left to expire; the others are released with an observation.
          if (i % 7 !== 0) await lease.release({ outcome: 'rebuilt', rows: i });
        }
        if (mode === 'distinct') continue;
        if (i % 5 === 0) {
          const taskId = taskIds[(i / 5) % taskIds.length] as number;
          const { etag, task } = await lh.tasks.get(taskId);
          if (!task.claim) await (await lh.tasks.claim(taskId, { etag })).lease.release();
        }
        if (i % 3 === 0) {
          await lh.spool('heap').queue('jobs').send({ job: i });
          const message = await lh.spool('heap').queue('jobs').receive();
          if (message && i % 9 === 0) await message.ack();
          else if (message && i % 9 === 3) await message.nack();
          // else: left leased, to expire.
        }
      }
      await lh.close({ releaseLeases: false });
      const peak = await server.heap();
      await expireEverything();
      return peak;
    };

    await round('warm', Math.min(2_000, cycles));
    const baseline = await server.heap();
    const peak = await round('long', cycles);
    const final = await server.heap();
    return { cycles, baseline, peak, final, stats: await server.stats() };
  } finally {
    await server.close();
  }
}
