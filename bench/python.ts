/**
 * 10. Python SDK (`packages/python`, package `leasehold`): one renew call through the SDK
 * (`lease.renew()`) vs the same request through a raw `httpx.Client` on the SDK's own transport
 * (`leasehold.http_transport()`: kept alive, `TCP_NODELAY`), sequential, rounds alternating which
 * goes first; then one client holding N leases on a manual clock: the HTTP requests of one
 * renewal cadence, and the memory it keeps per held lease (tracemalloc). The reference server
 * runs in a child process (`--clock manual --control`), the measuring side in
 * `bench/python/sdk_bench.py` under Debian's `/usr/bin/python3` (or `LEASEHOLD_PYTHON`), which
 * prints one JSON line of figures per round.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT, startReferenceServer } from './lib/child.js';
import { API_KEY, RUN_ID, SPACE_ID } from './lib/fixtures.js';
import { pairedRatios, single, summarize } from './lib/stats.js';
import { finishRow, ratioTarget, valueTarget, type Benchmark } from './lib/types.js';

/** Debian's interpreter (the one with python3-httpx); a pyenv `python3` first on PATH lacks it. */
const PYTHON = process.env.LEASEHOLD_PYTHON ?? '/usr/bin/python3';
const SCRIPT = 'bench/python/sdk_bench.py';

/** The lines `sdk_bench.py` prints, one JSON object each. */
type Line =
  | { kind: 'meta'; python: string; httpx: string }
  | { kind: 'renew'; round: number; sdkUs: number; rawUs: number }
  | { kind: 'held'; bytesPerLease: number; acquirePerS: number }
  | { kind: 'cadence'; round: number; requests: number; heartbeatRequests: number; namedIds: number; cadenceMs: number };

/** Runs the Python side to its end; answers its JSON lines. Its stderr is passed through (progress); a non-zero exit rejects. */
function runPython(args: readonly string[]): Promise<Line[]> {
  const child = spawn(PYTHON, [SCRIPT, ...args], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PYTHONPATH: join(REPO_ROOT, 'packages/python/src'), PYTHONDONTWRITEBYTECODE: '1' },
  });
  // Only this child, by its own handle, if the benchmark process ends first.
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    process.stderr.write(chunk);
  });
  return new Promise<Line[]>((resolve, reject) => {
    child.once('error', (error) => {
      process.off('exit', kill);
      reject(new Error(`${PYTHON} ${SCRIPT}: ${error.message} (set LEASEHOLD_PYTHON to an interpreter with httpx)`));
    });
    child.once('close', (code, signal) => {
      process.off('exit', kill);
      if (code !== 0) return reject(new Error(`${SCRIPT} failed (${code ?? signal}): ${stderr.trim().split('\n').slice(-5).join('\n')}`));
      try {
        resolve(stdout.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as Line));
      } catch {
        reject(new Error(`${SCRIPT} printed a line that is not JSON: ${stdout.slice(0, 200)}`));
      }
    });
  });
}

/** The lines of one kind, in order. */
function ofKind<K extends Line['kind']>(lines: readonly Line[], kind: K): Extract<Line, { kind: K }>[] {
  return lines.filter((l): l is Extract<Line, { kind: K }> => l.kind === kind);
}

/** The `python` benchmark: `pnpm bench -- --only python`. */
export const pythonSdk: Benchmark = {
  name: 'python',
  title: '10. Python SDK — renew call vs raw httpx, and one client holding N leases (manual clock, server in a child process)',
  async run(ctx) {
    const calls = ctx.quick ? 30 : 2_000;
    const warmup = ctx.quick ? 10 : 1_000;
    const leases = ctx.quick ? 200 : 10_000;
    const rounds = ctx.quick ? 1 : ctx.rounds + 2;
    const server = await startReferenceServer(['--clock', 'manual', '--control']);
    let lines: Line[];
    try {
      ctx.log(`python: ${PYTHON} ${SCRIPT}: ${rounds} rounds × ${calls} renews per client, then ${leases.toLocaleString('en-US')} leases held`);
      lines = await runPython([
        ...['--url', server.url, '--api-key', API_KEY, '--space-id', SPACE_ID, '--run-id', RUN_ID],
        ...['--rounds', String(rounds), '--calls', String(calls), '--warmup', String(warmup), '--leases', String(leases)],
      ]);
    } finally {
      await server.close();
    }
    const [meta] = ofKind(lines, 'meta');
    const renew = ofKind(lines, 'renew');
    const [held] = ofKind(lines, 'held');
    const cadences = ofKind(lines, 'cadence');
    if (!meta || !held || renew.length !== rounds || cadences.length !== rounds) {
      throw new Error(`${SCRIPT} printed ${renew.length} renew and ${cadences.length} cadence rounds of ${rounds}${held ? '' : ', no held line'}`);
    }
    const sdk = renew.map((r) => r.sdkUs);
    const raw = renew.map((r) => r.rawUs);
    const n = leases.toLocaleString('en-US');
    const named = [...new Set(cadences.map((c) => c.namedIds))].join(', ');
    const heartbeats = [...new Set(cadences.map((c) => c.heartbeatRequests))].join(', ');
    return {
      rows: [
        finishRow({
          bench: 'python',
          label: 'renew, wall per call',
          unit: 'µs',
          value: summarize(sdk),
          baseline: { label: 'raw httpx.Client', value: summarize(raw) },
          ratio: summarize(pairedRatios(sdk, raw)),
          target: ratioTarget('<=', 1.3),
        }),
        finishRow({
          bench: 'python',
          label: `heartbeat requests per cadence at ${n} leases`,
          unit: 'req',
          value: summarize(cadences.map((c) => c.requests)),
          target: valueTarget('<=', 1, 'req'),
          note: `of them POST /v1/claims/heartbeat: ${heartbeats}; ids it named: ${named}; wall from moving the clock to the answer applied ${summarize(cadences.map((c) => c.cadenceMs)).median.toFixed(0)} ms (median)`,
        }),
        finishRow({
          bench: 'python',
          label: `memory per held lease at ${n} leases`,
          unit: 'B/lease',
          value: single(held.bytesPerLease),
          target: valueTarget('<', 2048, 'B/lease'),
        }),
      ],
      notes: [
        `${PYTHON}: Python ${meta.python}, httpx ${meta.httpx}; PYTHONPATH=packages/python/src (the SDK's source, as it ships: pure Python); reference server packages/server/dist/cli.js --clock manual --control in a child process`,
        `renew: lease.renew() on a lease from Leasehold(base_url, api_key, heartbeat_ttl=600).space(…).run(…, lease_seconds=600).claim(key).acquire() (its background heartbeat, every 200 s, stays out of the rounds) vs httpx.Client(transport=leasehold.http_transport()).post(…/renew) on its own lease; ${rounds} rounds × ${calls} sequential calls each, which goes first alternating per round, after ${warmup} warm-up calls each`,
        'both clients use leasehold.http_transport() — the SDK\'s default transport: one kept-alive connection pool with TCP_NODELAY (httpx 0.23 writes a POST\'s head and body separately; without it each POST waits ~40 ms for a delayed ACK) — so the ratio is the SDK\'s own code, not a socket setting; both send Authorization, the JSON body {token, leaseSeconds} and a fresh Idempotency-Key, so the server does the same work; wall includes the server\'s time',
        `heartbeat: one Leasehold(heartbeat_ttl=30, clock=manual) holding ${n} leases; per round both clocks move one cadence (11 s: a third of the term plus the jitter, as in tests/test_scale.py) and the client's requests are counted by an httpx request hook until its heartbeat's answer is applied (the control request moving the server's clock goes through another client); every lease checked renewed and held; ${rounds} rounds after one warm-up cadence`,
        `memory: the bytes tracemalloc (started just before the acquires) still traces after gc.collect() with the ${n} leases held (acquired one after another, ${held.acquirePerS.toFixed(0)} acquires/s under tracemalloc), ÷ ${n} — the lease objects, the scheduler's entry and the benchmark's list of them (8 B); C allocations outside Python's allocator are not traced`,
      ],
    };
  },
};
