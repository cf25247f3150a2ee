import type { FencedLedger, WorkKind } from './ledger.js';
import type { FleetMessage, WorkerConfig, WorkerMessage, WorkerReport } from './protocol.js';
import { startWorker, type WorkerProcess } from './worker-process.js';

/** Leases lost, by kind of work and by how the worker learned it. */
export type LossTally = Record<string, number>;

/** The worker processes of the demo, wired to the fenced ledger. */
export class Fleet {
  private readonly children = new Map<string, WorkerProcess>();
  /** Reports of the workers that stopped. */
  readonly reports: WorkerReport[] = [];
  /** `kind/reason` → count of leases a worker saw lost. */
  readonly losses: LossTally = {};
  /** Workers that exited without a report. */
  readonly crashed: string[] = [];
  /** Resolves when every worker has started its loops. */
  readonly ready: Promise<void>;
  private readyCount = 0;
  private markReady: () => void = () => {};

  /** Starts one process per config (TypeScript or Python); each talks to the ledger over its channel. */
  constructor(
    configs: WorkerConfig[],
    private readonly ledger: FencedLedger,
  ) {
    this.ready = new Promise((resolve) => (this.markReady = resolve));
    for (const config of configs) {
      const child = startWorker(config);
      child.onMessage((message) => this.onMessage(child, message));
      // A worker that dies before it is ready must not keep the demo waiting for it.
      child.onExit(() => this.onReady(child));
      this.children.set(config.workerId, child);
    }
  }

  /** Blocks one worker's event loop for `ms` (its leases expire on the server meanwhile). */
  stall(workerId: string, ms: number): void {
    this.children.get(workerId)?.stall(ms);
  }

  /** Asks every worker to stop and resolves when all have exited. */
  async stop(timeoutMs = 30_000): Promise<void> {
    const exits = [...this.children.entries()].map(
      ([id, child]) =>
        new Promise<void>((resolve) => {
          const exited = () => {
            if (!this.reports.some((r) => r.workerId === id)) this.crashed.push(id);
            resolve();
          };
          if (child.exited) return exited();
          const timer = setTimeout(() => child.kill(), timeoutMs);
          child.onExit(() => {
            clearTimeout(timer);
            exited();
          });
          child.send({ type: 'stop' } satisfies FleetMessage);
        }),
    );
    await Promise.all(exits);
  }

  private readonly readied = new Set<WorkerProcess>();

  /** Counts a worker ready (once); when all are, every worker is told to start (each waits for it). */
  private onReady(child: WorkerProcess): void {
    if (this.readied.has(child)) return;
    this.readied.add(child);
    if (++this.readyCount < this.children.size) return;
    for (const worker of this.children.values()) worker.send({ type: 'start' });
    this.markReady();
  }

  private onMessage(child: WorkerProcess, message: WorkerMessage): void {
    if (message.type === 'ready') return this.onReady(child);
    if (message.type === 'report') {
      this.reports.push(message.report);
      return;
    }
    if (message.type === 'lost') {
      const name = `${message.kind}/${message.reason}`;
      this.losses[name] = (this.losses[name] ?? 0) + 1;
      return;
    }
    const { id, op, kind, item, fence } = message;
    let answer: FleetMessage;
    if (op === 'peek') answer = { type: 'ledger', id, done: this.ledger.isDone(kind as WorkKind, item) };
    else if (op === 'begin') answer = { type: 'ledger', id, ...this.ledger.begin(kind, item, fence, workerIdOf(this.children, child)) };
    else answer = { type: 'ledger', id, verdict: this.ledger.commit(kind, item, fence, workerIdOf(this.children, child)) };
    child.send(answer);
  }
}

function workerIdOf(children: Map<string, WorkerProcess>, child: WorkerProcess): string {
  for (const [id, candidate] of children) if (candidate === child) return id;
  return 'unknown';
}
