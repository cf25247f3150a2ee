import type { LossTally } from './fleet.js';
import { percentile } from './latency.js';
import type { FencedLedger, WorkKind } from './ledger.js';
import type { WorkerReport } from './protocol.js';

/** The end-of-run verdict and the lines that explain it. */
export interface Summary {
  ok: boolean;
  lines: string[];
}

const KINDS: Array<[WorkKind, string]> = [
  ['task', 'tasks (lh.tasks.work)'],
  ['message', 'messages (consume)'],
  ['key', 'keys (claim.run)'],
];

/** Builds the summary: exactly-once counts, losses and their detection, heartbeats, retries, latency. */
export function summarize(input: {
  ledger: FencedLedger;
  reports: WorkerReport[];
  losses: LossTally;
  crashed: string[];
  faults: string[];
  elapsedMs: number;
  workers: number;
  /** Python workers (`--python N`, named `python-1`…), besides the `workers` TypeScript ones. */
  pythonWorkers?: number;
  /** What the replica chaos did (`--replicas`), when it ran. */
  chaos?: string | undefined;
}): Summary {
  const { ledger, reports } = input;
  const lines: string[] = [];
  let ok = input.crashed.length === 0;
  const python = input.pythonWorkers ?? 0;
  const fleet = python === 0 ? `${input.workers} workers` : `${input.workers} TypeScript + ${python} Python workers`;
  lines.push(`Leasehold demo — ${fleet}, ${(input.elapsedMs / 1000).toFixed(1)} s`);
  lines.push('');
  lines.push('Work done exactly once:');
  for (const [kind, label] of KINDS) {
    const tally = ledger.tally(kind);
    const total = tally.once + tally.duplicates.length + tally.missing.length;
    lines.push(
      `  ${label.padEnd(24)} ${tally.once}/${total} once, ${tally.duplicates.length} twice, ${tally.missing.length} not done` +
        `  (stale writes rejected: ${ledger.staleRejected[kind]}, finished work found on reconcile: ${ledger.alreadyDone[kind]})`,
    );
    for (const duplicate of tally.duplicates) {
      lines.push(`    DUPLICATE ${kind} ${duplicate.id}: ${duplicate.commits.map((c) => `${c.worker}@fence ${c.fence}`).join(', ')}`);
    }
    if (tally.missing.length > 0) lines.push(`    NOT DONE: ${tally.missing.slice(0, 10).join(', ')}${tally.missing.length > 10 ? ', …' : ''}`);
    if (tally.duplicates.length > 0 || tally.missing.length > 0) ok = false;
  }
  if (python > 0) lines.push(...byRuntime(ledger));
  const reused = ledger.fenceReused;
  lines.push(`  fences strictly increasing: ${reused.length === 0 ? 'yes' : `NO — ${reused.length} fence(s) seen from two holders`}`);
  for (const reuse of reused.slice(0, 10)) lines.push(`    FENCE REUSED ${reuse}`);
  if (reused.length > 0) ok = false;
  lines.push('  stale writes rejected: writes by a worker whose lease had already passed to another, refused by the');
  lines.push('    guarded resource because their fence was older than one it had seen (the fence check working).');
  lines.push('  finished work found on reconcile: a new holder found the effect already recorded by a holder whose');
  lines.push('    lease was lost after it wrote, and skipped it instead of doing it twice.');

  const detection: Record<string, number> = {};
  let heartbeats = 0;
  let renewed = 0;
  let retries = 0;
  let requests = 0;
  let stalls = 0;
  const latencies: number[] = [];
  for (const report of reports) {
    heartbeats += report.heartbeatsSent;
    renewed += report.leasesRenewed;
    retries += report.retries;
    requests += report.requests;
    stalls += report.stalls;
    for (const sample of report.latenciesMs) latencies.push(sample);
    for (const [how, count] of Object.entries(report.lostByDetection)) detection[how] = (detection[how] ?? 0) + count;
  }
  const lostTotal = Object.values(input.losses).reduce((a, b) => a + b, 0);
  lines.push('');
  lines.push(`Leases lost while guarding work: ${lostTotal} (the work stopped; a write that raced the loss met the fence check above)`);
  for (const [name, count] of Object.entries(input.losses).sort()) lines.push(`  ${name.padEnd(24)} ${count}`);
  const detected = Object.entries(detection).filter(([, n]) => n > 0);
  lines.push(`  detected by the renewal scheduler: ${detected.length === 0 ? 'none' : detected.map(([how, n]) => `${how} ${n}`).join(', ')}; event-loop stalls noticed: ${stalls}`);
  lines.push('');
  lines.push(`Renewal: ${heartbeats} batch heartbeats renewed leases ${renewed} times (${renewed} per-lease renew calls avoided, ${(renewed / Math.max(1, heartbeats)).toFixed(1)} per heartbeat)`);
  lines.push(`Requests: ${requests} attempts, ${retries} retries`);
  lines.push(`Latency per attempt: p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms`);
  lines.push('');
  lines.push(`Faults injected: ${input.faults.length === 0 ? 'none' : input.faults.join('; ')}`);
  if (input.chaos !== undefined) lines.push(`Process chaos: ${input.chaos}`);
  const errors = reports.flatMap((r) => r.errors.map((e) => `${r.workerId}: ${e}`));
  if (errors.length > 0) {
    // A call that failed after every retry (a 5xx, a dropped connection): the audit fails with it.
    lines.push(`Unexpected errors (${errors.length}):`);
    for (const error of errors.slice(0, 10)) lines.push(`  ${error}`);
    ok = false;
  } else {
    lines.push('Unexpected errors: none (no call failed after its retries)');
  }
  if (input.crashed.length > 0) lines.push(`Workers that exited without a report: ${input.crashed.join(', ')}`);
  lines.push('');
  lines.push(ok ? 'OK: nothing was done twice and nothing was lost.' : 'FAILED: see above.');
  return { ok, lines };
}

/** Who committed the work: the TypeScript workers (`worker-N`) and the Python ones (`python-N`). */
function byRuntime(ledger: FencedLedger): string[] {
  const done = (runtime: 'TypeScript' | 'Python') =>
    KINDS.map(([kind]) => {
      let n = 0;
      for (const [worker, count] of ledger.commitsBy(kind)) if (worker.startsWith('python-') === (runtime === 'Python')) n += count;
      return `${n} ${kind}s`;
    }).join(', ');
  return [`  committed by the TypeScript workers: ${done('TypeScript')}`, `  committed by the Python workers: ${done('Python')}`];
}
