import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { FencedLedger, WorkKind } from './ledger.js';
import type { FleetMessage, WorkerConfig, WorkerMessage, WorkerReport } from './protocol.js';

/** Leases lost, by kind of work and by how the worker learned it. */
export type LossTally = Record<string, number>;

/** The worker processes of the demo, wired to the fenced ledger. */
export class Fleet {
  private readonly children = new Map<string, ChildProcess>();
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

  /** Starts one process per config; each talks to the ledger over IPC. */
  constructor(
    configs: WorkerConfig[],
    private readonly ledger: FencedLedger,
  ) {
    this.ready = new Promise((resolve) => (this.markReady = resolve));
    const script = fileURLToPath(new URL('./worker.ts', import.meta.url));
    for (const config of configs) {
      const child = fork(script, [JSON.stringify(config)], {
        execArgv: ['--import', 'tsx'],
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      child.on('message', (message: WorkerMessage) => this.onMessage(child, message));
      this.children.set(config.workerId, child);
    }
  }

  /** Blocks one worker's event loop for `ms` (its leases expire on the server meanwhile). */
  stall(workerId: string, ms: number): void {
    this.children.get(workerId)?.send({ type: 'stall', ms } satisfies FleetMessage);
  }

  /** Asks every worker to stop and resolves when all have exited. */
  async stop(timeoutMs = 30_000): Promise<void> {
    const exits = [...this.children.entries()].map(
      ([id, child]) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null) return resolve();
          const timer = setTimeout(() => {
            child.kill('SIGKILL');
          }, timeoutMs);
          child.once('exit', () => {
            clearTimeout(timer);
            if (!this.reports.some((r) => r.workerId === id)) this.crashed.push(id);
            resolve();
          });
          child.send({ type: 'stop' } satisfies FleetMessage);
        }),
    );
    await Promise.all(exits);
  }

  private onMessage(child: ChildProcess, message: WorkerMessage): void {
    if (message.type === 'ready') {
      if (++this.readyCount === this.children.size) this.markReady();
      return;
    }
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

function workerIdOf(children: Map<string, ChildProcess>, child: ChildProcess): string {
  for (const [id, candidate] of children) if (candidate === child) return id;
  return 'unknown';
}
