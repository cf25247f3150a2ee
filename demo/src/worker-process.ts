import { fork, spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { FleetMessage, WorkerConfig, WorkerMessage } from './protocol.js';

/** Debian's interpreter (the one with python3-httpx); a pyenv `python3` first on PATH may lack it. */
export const PYTHON = process.env.LEASEHOLD_PYTHON ?? '/usr/bin/python3';

/** One worker process of the fleet, whatever it runs: the fleet sends it commands and ledger answers. */
export interface WorkerProcess {
  /** Sends one message to the worker. */
  send(message: FleetMessage): void;
  /** Calls `listener` with every message the worker sends. */
  onMessage(listener: (message: WorkerMessage) => void): void;
  /** Calls `listener` once, when the process has exited. */
  onExit(listener: () => void): void;
  /** Whether the process has exited. */
  readonly exited: boolean;
  /** Stops the worker for `ms` (its leases expire on the server meanwhile). */
  stall(ms: number): void;
  /** Kills it at once. */
  kill(): void;
}

/** A TypeScript worker (demo/src/worker.ts), its messages over Node's IPC channel. */
function nodeWorker(config: WorkerConfig): WorkerProcess {
  const script = fileURLToPath(new URL('./worker.ts', import.meta.url));
  const child = fork(script, [JSON.stringify(config)], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return {
    send: (message) => void (child.connected && child.send(message)),
    onMessage: (listener) => void child.on('message', listener),
    ...lifecycle(child),
    // Blocks its event loop, as a long GC pause or a CPU-bound bug would.
    stall: (ms) => void (child.connected && child.send({ type: 'stall', ms } satisfies FleetMessage)),
  };
}

/**
 * A Python worker (demo/src/python_worker.py, the SDK of packages/python), its messages as JSON
 * lines on stdin/stdout. A stall stops the whole process (SIGSTOP, SIGCONT `ms` later): its
 * renewal thread pauses with its work, as when the machine swaps or the VM is paused.
 */
function pythonWorker(config: WorkerConfig): WorkerProcess {
  const script = fileURLToPath(new URL('./python_worker.py', import.meta.url));
  const child = spawn(PYTHON, [script, JSON.stringify(config)], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', PYTHONUNBUFFERED: '1' },
  });
  const lines = createInterface({ input: child.stdout! });
  child.stdin!.on('error', () => {}); // a worker that died: its exit is what the fleet sees
  return {
    send: (message) => void (child.stdin!.writable && child.stdin!.write(`${JSON.stringify(message)}\n`)),
    onMessage: (listener) => void lines.on('line', (line) => listener(JSON.parse(line) as WorkerMessage)),
    ...lifecycle(child),
    stall: (ms) => {
      if (child.exitCode !== null || !child.kill('SIGSTOP')) return;
      setTimeout(() => child.kill('SIGCONT'), ms);
    },
  };
}

function lifecycle(child: ChildProcess): Pick<WorkerProcess, 'onExit' | 'exited' | 'kill'> {
  return {
    onExit: (listener) => void child.once('exit', listener),
    get exited() {
      return child.exitCode !== null || child.signalCode !== null;
    },
    kill: () => void child.kill('SIGKILL'),
  };
}

/** Starts the worker process `config.runtime` names (TypeScript unless `python`). */
export function startWorker(config: WorkerConfig): WorkerProcess {
  return config.runtime === 'python' ? pythonWorker(config) : nodeWorker(config);
}
