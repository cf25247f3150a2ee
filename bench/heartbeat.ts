/**
 * 3. Batch heartbeat: one `Leasehold` client holding N leases renews them with ONE request per
 * cadence (its `RenewalScheduler`, driven on a manual clock through the `renewal` tuning option,
 * so a cadence costs no waiting), vs the per-lease renew loop it replaces (N `lease.renew()`).
 * The reference server runs in a child process (a fresh one per size); the server-side cost of a
 * 10,000-lease heartbeat is measured in process on the engine and on the HTTP pipeline.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { Pool } from 'undici';
import type { Leasehold } from '../packages/client/src/index.js';

type SchedulerTimers = Leasehold.SchedulerTimers;
import { createLeaseholdServer, ManualClock } from '../packages/server/src/index.js';
import { startReferenceServer } from './lib/child.js';
import { API_KEY, claimsPath, RUN_ID, SPACE_ID } from './lib/fixtures.js';
import { cpuMicros, mapLimit, settleHeap } from './lib/measure.js';
import { benchRun, newClient, SDK_BUILD } from './lib/sdk.js';
import { pairedRatios, summarize } from './lib/stats.js';
import { finishRow, valueTarget, type Benchmark, type Row } from './lib/types.js';

const TTL_SECONDS = 60;
const CONNECTIONS = 16; // the SDK's default agent: 16 sockets per origin

/** setTimeout/clearTimeout on a manual clock: the benchmark fires the earliest one itself. */
class ManualTimers implements SchedulerTimers {
  now = 0;
  readonly #pending = new Map<number, { at: number; callback: () => void }>();
  #next = 1;

  setTimeout(callback: () => void, ms: number): unknown {
    const id = this.#next++;
    this.#pending.set(id, { at: this.now + ms, callback });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.#pending.delete(handle as number);
  }

  /** Moves the clock to the earliest timer and runs it; false when none is pending. */
  fireNext(): boolean {
    let best: [number, { at: number; callback: () => void }] | undefined;
    for (const entry of this.#pending) if (!best || entry[1].at < best[1].at) best = entry;
    if (!best) return false;
    this.#pending.delete(best[0]);
    this.now = Math.max(this.now, best[1].at);
    best[1].callback();
    return true;
  }
}

/** Counts the HTTP requests undici starts (any dispatcher, any copy of undici). */
function requestCounter(): { readonly count: number; stop(): void } {
  const state = { count: 0 };
  const onCreate = () => {
    state.count++;
  };
  subscribe('undici:request:create', onCreate);
  return {
    get count() {
      return state.count;
    },
    stop: () => unsubscribe('undici:request:create', onCreate),
  };
}

interface SizeResult {
  size: number;
  bytesPerLease: number;
  hb: { requests: number[]; wallMs: number[]; cpuMs: number[] };
  loop: { requests: number[]; wallMs: number[]; cpuMs: number[] };
}

async function measureSize(size: number, rounds: number, log: (m: string) => void): Promise<SizeResult> {
  const server = await startReferenceServer();
  const pool = new Pool(server.url, { connections: CONNECTIONS });
  const counter = requestCounter();
  const timers = new ManualTimers();
  const lh = await newClient(server.url, { dispatcher: pool }, { heartbeatTtlSeconds: TTL_SECONDS, renewal: { now: () => timers.now, timers } });
  try {
    const failures: unknown[] = [];
    lh.on('failure', (event) => failures.push(event.error));
    const run = benchRun(lh);

    // Open every connection and warm the request path before the heap baseline.
    await mapLimit(Array.from({ length: 4 * CONNECTIONS }, (_, i) => `warm/${i}`), 2 * CONNECTIONS, async (key) => {
      await (await run.claim(key).acquire()).release();
    });

    const keys = Array.from({ length: size }, (_, i) => `hb/${i}`);
    const heap0 = settleHeap();
    log(`heartbeat: acquiring ${size} leases`);
    const leases = await mapLimit(keys, 2 * CONNECTIONS, (key) => run.claim(key).acquire());
    const bytesPerLease = (settleHeap() - heap0) / size;

    const cadence = async () => {
      const answered = new Promise<{ renewed: number; results: number }>((resolve) => {
        const off = lh.on('heartbeat', (event) => {
          off();
          resolve(event);
        });
      });
      const sent = lh.stats().heartbeatsSent;
      const before = counter.count;
      const c0 = cpuMicros();
      const t0 = performance.now();
      for (let fires = 0; lh.stats().heartbeatsSent === sent; fires++) {
        if (fires > 50 || !timers.fireNext()) throw new Error('the scheduler sent no heartbeat');
      }
      const event = await answered;
      const wallMs = performance.now() - t0;
      const cpuMs = (cpuMicros() - c0) / 1000;
      if (event.renewed !== size || failures.length) throw new Error(`heartbeat renewed ${event.renewed} of ${size} (${failures.length} failures)`);
      return { requests: counter.count - before, wallMs, cpuMs };
    };
    const renewLoop = async () => {
      const before = counter.count;
      const c0 = cpuMicros();
      const t0 = performance.now();
      await mapLimit(leases, CONNECTIONS, (lease) => lease.renew());
      return { requests: counter.count - before, wallMs: performance.now() - t0, cpuMs: (cpuMicros() - c0) / 1000 };
    };

    // Warm-up: a few cadences, so the scheduler's answer path is compiled before it is timed.
    for (let i = 0; i < (rounds > 1 ? 5 : 1); i++) await cadence();
    const result: SizeResult = { size, bytesPerLease, hb: { requests: [], wallMs: [], cpuMs: [] }, loop: { requests: [], wallMs: [], cpuMs: [] } };
    log(`heartbeat: ${size} leases, ${rounds} rounds of (one cadence, one renew loop)`);
    for (let r = 0; r < rounds; r++) {
      const pair = r % 2 === 0 ? [cadence, renewLoop] : [renewLoop, cadence];
      for (const step of pair) {
        const m = await step();
        const into = step === cadence ? result.hb : result.loop;
        into.requests.push(m.requests);
        into.wallMs.push(m.wallMs);
        into.cpuMs.push(m.cpuMs);
      }
    }
    if (leases.some((l) => l.status !== 'held')) throw new Error('a lease was lost during the benchmark');
    return result;
  } finally {
    await lh.close({ releaseLeases: false });
    counter.stop();
    await pool.close();
    await server.close();
  }
}

/** Server side, in process: `engine.heartbeat` and the HTTP pipeline for N leases vs N renews. */
async function serverSide(size: number, reps: number) {
  const server = createLeaseholdServer({ clock: new ManualClock(Date.UTC(2026, 10, 29)) });
  const auth = server.engine.authenticate(`Bearer ${API_KEY}`);
  if (!auth.ok) throw new Error('cannot authenticate the demo key');
  const credential = auth.credential;
  const claims = Array.from({ length: size }, (_, i) => {
    const key = `srv/${i}`;
    const claim = server.engine.claims.acquire({ credential, spaceId: SPACE_ID, key, scopeId: RUN_ID, holder: 'bench', holderSession: 's', leaseSeconds: 600 });
    return { key, token: claim.token as string };
  });
  const headers = { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' };
  const hbBody = Buffer.from(JSON.stringify({ ttl: 600, holderSession: 's' }));
  const time = (fn: () => void) => {
    const t0 = performance.now();
    fn();
    return performance.now() - t0;
  };
  const timeAsync = async (fn: () => Promise<void>) => {
    const t0 = performance.now();
    await fn();
    return performance.now() - t0;
  };
  const engineHb = () => {
    if (server.engine.heartbeat({ credential, ttl: 600 }).results.length !== size) throw new Error('short heartbeat');
  };
  const engineLoop = () => {
    for (const c of claims) server.engine.claims.renew({ credential, spaceId: SPACE_ID, key: c.key, token: c.token, leaseSeconds: 600 });
  };
  const httpHb = async () => {
    const res = await server.handlePlain({ method: 'POST', url: '/v1/claims/heartbeat', headers, body: hbBody });
    if (res.status !== 200) throw new Error(`heartbeat ${res.status}: ${res.body}`);
  };
  const httpLoop = async () => {
    for (const c of claims) {
      const body = Buffer.from(JSON.stringify({ token: c.token, leaseSeconds: 600 }));
      const res = await server.handlePlain({ method: 'POST', url: claimsPath(c.key, 'renew'), headers, body });
      if (res.status !== 200) throw new Error(`renew ${res.status}: ${res.body}`);
    }
  };
  for (let i = 0; i < 3; i++) {
    engineHb();
    engineLoop();
    await httpHb();
    await httpLoop();
  }
  const out = { engineHb: [] as number[], engineLoop: [] as number[], httpHb: [] as number[], httpLoop: [] as number[] };
  for (let i = 0; i < reps; i++) {
    out.engineHb.push(time(engineHb));
    out.engineLoop.push(time(engineLoop));
    out.httpHb.push(await timeAsync(httpHb));
    if (i < Math.max(1, Math.floor(reps / 3))) out.httpLoop.push(await timeAsync(httpLoop));
  }
  return out;
}

export const batchHeartbeat: Benchmark = {
  name: 'heartbeat',
  title: '3. Batch heartbeat — one Leasehold client holding N leases (scheduler on a manual clock, server in a child process) vs a per-lease renew loop',
  async run(ctx) {
    const sizes = ctx.quick ? [1, 50] : [1, 100, 1_000, 10_000];
    const serverSize = ctx.quick ? 500 : 10_000;
    const rounds = ctx.quick ? 1 : ctx.rounds;
    const rows: Row[] = [];
    for (const size of sizes) {
      const r = await measureSize(size, rounds, ctx.log);
      const n = size.toLocaleString('en-US');
      const pair = (label: string, unit: string, a: number[], b: number[], target?: Row['target']): Row =>
        finishRow({
          bench: 'heartbeat',
          label: `N=${n}: ${label}`,
          unit,
          value: summarize(a),
          baseline: { label: `renew loop`, value: summarize(b) },
          ratio: summarize(pairedRatios(a, b)),
          target,
        });
      rows.push(pair('requests per cadence', 'req', r.hb.requests, r.loop.requests, valueTarget('<=', 1, 'req')));
      rows.push(pair('client wall per cadence', 'ms', r.hb.wallMs, r.loop.wallMs));
      rows.push(pair('client CPU per cadence', 'ms', r.hb.cpuMs, r.loop.cpuMs));
      if (size >= 1_000 || (ctx.quick && size === sizes[sizes.length - 1])) {
        rows.push(
          finishRow({
            bench: 'heartbeat',
            label: `N=${n}: client memory per held lease`,
            unit: 'B',
            value: summarize([r.bytesPerLease]),
            target: valueTarget('<', 1024, 'B'),
          }),
        );
      }
    }
    ctx.log(`heartbeat: server side, ${serverSize} leases in process`);
    const reps = ctx.quick ? 3 : 21;
    const s = await serverSide(serverSize, reps);
    const n = serverSize.toLocaleString('en-US');
    rows.push(
      finishRow({
        bench: 'heartbeat',
        label: `server: engine.heartbeat, ${n} leases`,
        unit: 'ms',
        value: summarize(s.engineHb),
        baseline: { label: `${n} × engine.claims.renew`, value: summarize(s.engineLoop) },
        ratio: summarize(pairedRatios(s.engineHb, s.engineLoop)),
        target: valueTarget('<', 20, 'ms'),
      }),
      finishRow({
        bench: 'heartbeat',
        label: `server: HTTP pipeline heartbeat, ${n} leases`,
        unit: 'ms',
        value: summarize(s.httpHb),
        baseline: { label: `${n} renews via handlePlain`, value: summarize(s.httpLoop) },
        ratio: summarize(pairedRatios(s.httpHb.slice(0, s.httpLoop.length), s.httpLoop)),
      }),
    );
    return {
      rows,
      notes: [
        `client: new Leasehold({ dispatcher: Pool(${CONNECTIONS}), heartbeatTtlSeconds: ${TTL_SECONDS}, renewal: { now, timers } }) — cadence ${TTL_SECONDS / 3} s on a manual clock whose timers the benchmark fires, so no real waiting; leases from run.claim(key).acquire(); ${SDK_BUILD}`,
        `per cadence: from firing the scheduler's timer to its 'heartbeat' event (answer applied); requests counted on undici's diagnostics channel; ${rounds} rounds, cadence and loop alternating, after 5 warm-up cadences`,
        `renew loop: every lease's lease.renew() (one POST …/renew each), ${CONNECTIONS} in flight`,
        'memory: heapUsed after full GCs with the N leases held (everything the client keeps per lease) minus before, ÷ N',
        `server rows: in process on a manual clock, median of ${reps}; the HTTP pipeline row includes routing, validation and JSON.stringify of the ${n}-result answer`,
      ],
    };
  },
};
