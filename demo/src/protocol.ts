import type { WorkKind } from './ledger.js';

/** What a worker process is told at start. */
export interface WorkerConfig {
  workerId: string;
  /** What the worker runs: demo/src/worker.ts (`node`, the default) or demo/src/python_worker.py. */
  runtime?: 'node' | 'python';
  baseUrl: string;
  apiKey: string;
  spaceId: string;
  runId: string;
  taskIds: number[];
  keys: string[];
  spool: string;
  queue: string;
  heartbeatTtlSeconds: number;
  /** Tasks worked on at once by this worker. */
  taskConcurrency: number;
  /** Work time per item, ms (between half and one and a half times this). */
  workMs: Record<WorkKind, number>;
  seed: number;
}

/** Worker → fleet: ledger calls (answered by id), progress and the final report. */
export type WorkerMessage =
  | { type: 'ledger'; id: number; op: 'begin' | 'commit' | 'peek'; kind: WorkKind; item: string; fence: number }
  | { type: 'ready' }
  | { type: 'lost'; kind: WorkKind; reason: string }
  | { type: 'report'; report: WorkerReport };

/** Fleet → worker: ledger answers and commands. */
export type FleetMessage =
  | { type: 'ledger'; id: number; done?: boolean; stale?: boolean; verdict?: 'accepted' | 'stale' }
  | { type: 'stall'; ms: number }
  /** Every worker is ready: begin (each waits for it, so the fleet starts together). */
  | { type: 'start' }
  | { type: 'stop' };

/** What one worker did, sent when it stops. */
export interface WorkerReport {
  workerId: string;
  heartbeatsSent: number;
  leasesRenewed: number;
  lostByDetection: Record<string, number>;
  stalls: number;
  retries: number;
  requests: number;
  latenciesMs: number[];
  errors: string[];
}
