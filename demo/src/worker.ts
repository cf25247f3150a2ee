// One worker process of the demo fleet: its own event loop, its own client and session.
import { ConflictError, Leasehold, LeaseLostError, PreconditionFailedError } from '@leasehold/client';
import type { WorkKind } from './ledger.js';
import type { FleetMessage, WorkerConfig, WorkerMessage, WorkerReport } from './protocol.js';

const config = JSON.parse(process.argv[2] ?? '{}') as WorkerConfig;
const send = (message: WorkerMessage) => process.send?.(message);
const stop = new AbortController();
/** Resolves when the fleet says every worker is ready (or stops it first): all begin together. */
let begin: () => void = () => {};
const started = new Promise<void>((resolve) => (begin = resolve));
const pending = new Map<number, (answer: FleetMessage & { type: 'ledger' }) => void>();
let nextCall = 1;
let retries = 0;
let requests = 0;
const latenciesMs: number[] = [];
const errors: string[] = [];

let seed = config.seed;
/** A small reproducible random source (mulberry32) so runs can be repeated. */
function random(): number {
  let t = (seed += 0x6d2b79f5);
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

function shuffled<T>(items: readonly T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

function ledger(op: 'begin' | 'commit' | 'peek', kind: WorkKind, item: string, fence = 0) {
  const id = nextCall++;
  return new Promise<FleetMessage & { type: 'ledger' }>((resolve) => {
    pending.set(id, resolve);
    send({ type: 'ledger', id, op, kind, item, fence });
  });
}

process.on('message', (message: FleetMessage) => {
  if (message.type === 'ledger') {
    pending.get(message.id)?.(message);
    pending.delete(message.id);
  } else if (message.type === 'stall') {
    // Block this process's event loop, as a long GC pause or a CPU-bound bug would.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, message.ms);
  } else if (message.type === 'start') {
    begin();
  } else if (message.type === 'stop') {
    stop.abort();
    begin();
  }
});

const lh = new Leasehold({
  baseUrl: config.baseUrl,
  apiKey: config.apiKey,
  session: `sess_${config.workerId}_${process.pid}`,
  heartbeatTtlSeconds: config.heartbeatTtlSeconds,
  maxRetries: 6,
  timeoutMs: 10_000,
  hooks: {
    onAttemptEnd: (event) => {
      requests += 1;
      latenciesMs.push(event.durationMs);
    },
    onRetryScheduled: () => {
      retries += 1;
    },
  },
});

/** Simulated work that stops as soon as the lease guarding it is lost. */
function work(kind: WorkKind, signal: AbortSignal): Promise<void> {
  const ms = config.workMs[kind] * (0.5 + random());
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    }, { once: true });
  });
}

/**
 * The fenced write of one item: reconcile first (the store sees our fence, and tells us whether
 * a predecessor whose lease was lost had already finished), work, then commit with the fence.
 * Each step that shows the fence is taken only while the lease is still ours by the SDK's local
 * deadline: a worker starved past it (a loaded machine) stops as a loss instead of showing the
 * store a fence a successor may already have replaced.
 */
async function doOnce(kind: WorkKind, item: string, lease: { fence: number | null; signal: AbortSignal; throwIfLost(): void }) {
  const fence = lease.fence ?? 0;
  lease.throwIfLost();
  const reconciled = await ledger('begin', kind, item, fence);
  if (reconciled.stale) throw new Error(`stale fence ${fence} for ${kind} ${item}`);
  if (reconciled.done) return;
  await work(kind, lease.signal);
  lease.throwIfLost();
  const committed = await ledger('commit', kind, item, fence);
  if (committed.verdict === 'stale') throw new Error(`the store rejected a stale write for ${kind} ${item}`);
}

function noteLoss(kind: WorkKind, error: unknown): boolean {
  const lost = error instanceof LeaseLostError ? error : (error as { cause?: unknown })?.cause instanceof LeaseLostError ? (error as { cause: LeaseLostError }).cause : undefined;
  if (!lost) return false;
  send({ type: 'lost', kind, reason: lost.reason });
  return true;
}

/** Claims and works tasks until every task is Done; a 409 or 412 means another worker got there first. */
async function taskLoop(): Promise<void> {
  let open = shuffled(config.taskIds);
  while (open.length > 0 && !stop.signal.aborted) {
    const next: number[] = [];
    const queue = [...open];
    const lane = async () => {
      for (let taskId = queue.shift(); taskId !== undefined && !stop.signal.aborted; taskId = queue.shift()) {
        try {
          const { task } = await lh.tasks.get(taskId);
          if (task.status === 'Done') continue;
          next.push(taskId);
          if (task.claim) continue;
          await lh.tasks.work(taskId, (ctx) => doOnce('task', String(taskId), ctx.lease), { note: `done by ${config.workerId}` });
        } catch (error) {
          if (error instanceof ConflictError || error instanceof PreconditionFailedError || noteLoss('task', error)) continue;
          errors.push(`task ${taskId}: ${(error as Error).message}`);
        }
      }
    };
    await Promise.all(Array.from({ length: config.taskConcurrency }, lane));
    open = next;
    if (open.length > 0) await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function keyLoop(): Promise<void> {
  const run = lh.space(config.spaceId).run(config.runId, { holder: config.workerId });
  let open = config.keys;
  while (open.length > 0 && !stop.signal.aborted) {
    const next: string[] = [];
    for (const key of shuffled(open)) {
      if (stop.signal.aborted) return;
      if ((await ledger('peek', 'key', key)).done) continue;
      next.push(key);
      try {
        await run.claim(key).run((lease) => doOnce('key', key, lease), { signal: stop.signal });
      } catch (error) {
        if (stop.signal.aborted || noteLoss('key', error)) continue;
        errors.push(`key ${key}: ${(error as Error).message}`);
      }
    }
    open = next;
  }
}

async function messageLoop(): Promise<void> {
  await lh
    .spool(config.spool)
    .queue(config.queue)
    .consume(
      async (message, { lease }) => {
        try {
          await doOnce('message', message.id, lease);
        } catch (error) {
          noteLoss('message', error);
          throw error;
        }
      },
      { concurrency: 3, signal: stop.signal, pollIntervalMs: 100, onError: () => {} },
    );
}

async function main(): Promise<void> {
  send({ type: 'ready' });
  await started;
  await Promise.all([taskLoop(), keyLoop(), messageLoop()]);
  await new Promise<void>((resolve) => (stop.signal.aborted ? resolve() : stop.signal.addEventListener('abort', () => resolve())));
  const stats = lh.stats();
  await lh.close();
  const report: WorkerReport = {
    workerId: config.workerId,
    heartbeatsSent: stats.heartbeatsSent,
    leasesRenewed: stats.leasesRenewed,
    lostByDetection: { ...stats.lost },
    stalls: stats.stalls,
    retries,
    requests,
    latenciesMs,
    errors,
  };
  send({ type: 'report', report });
  process.disconnect?.();
}

main().catch((error: unknown) => {
  errors.push(`worker crashed: ${(error as Error).stack ?? String(error)}`);
  process.exitCode = 1;
});
