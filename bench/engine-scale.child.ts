/**
 * Child process of the engine-scale benchmark (run with --expose-gc --max-old-space-size=4096):
 * prints one JSON line with memory per held claim, tick costs and mass-expiry costs.
 *   engine-scale.child.ts <big> <small> <ticks> <rounds> <expire>
 */
import { createLeaseholdServer, ManualClock } from '../packages/server/src/index.js';
import { API_KEY, RUN_ID, SPACE_ID } from './lib/fixtures.js';
import { settleHeap } from './lib/measure.js';

const [big, small, ticks, rounds, expire] = process.argv.slice(2).map(Number) as [number, number, number, number, number];
const T0 = Date.UTC(2026, 10, 29, 15);

function build(count: number) {
  const clock = new ManualClock(T0);
  const server = createLeaseholdServer({ clock });
  const auth = server.engine.authenticate(`Bearer ${API_KEY}`);
  if (!auth.ok) throw new Error('cannot authenticate the demo key');
  const credential = auth.credential;
  const engine = server.engine;
  const acquire = (prefix: string, n: number, leaseSeconds: number) => {
    for (let i = 0; i < n; i++) {
      engine.claims.acquire({ credential, spaceId: SPACE_ID, key: `${prefix}${i}`, scopeId: RUN_ID, holder: 'worker-1', holderSession: 'sess-1', leaseSeconds });
    }
  };
  return { clock, engine, acquire, server };
}

const progress = (m: string) => process.stderr.write(`[bench] engine: ${m}\n`);

// Memory per held claim: heap after full GCs, before and after `big` acquires, ÷ big.
const heap0 = settleHeap();
const t0 = performance.now();
const large = build(big);
large.acquire('k/', big, 600);
const acquireMs = performance.now() - t0;
const bytesPerClaim = (settleHeap() - heap0) / big;
progress(`${big} claims held (${(acquireMs / 1000).toFixed(1)} s to acquire), ${Math.round(bytesPerClaim)} B each`);
const smallOne = build(small);
smallOne.acquire('k/', small, 600);

// A tick with nothing due: advance 1 µs, processExpirations(); ns per tick.
const tick = (s: ReturnType<typeof build>) => {
  const start = performance.now();
  for (let i = 0; i < ticks; i++) {
    s.clock.advance(0.001);
    s.engine.processExpirations();
  }
  return ((performance.now() - start) * 1e6) / ticks;
};
// Expiring `expire` leases at once: acquire them for 5 s, advance past it, time processExpirations().
const expireAll = (s: ReturnType<typeof build>, round: number) => {
  s.acquire(`e${round}/`, expire, 5);
  s.clock.advance(5_001);
  const start = performance.now();
  const expired = s.engine.processExpirations();
  const ms = performance.now() - start;
  if (expired !== expire) throw new Error(`expired ${expired}, expected ${expire}`);
  return ms;
};

tick(large);
tick(smallOne); // warm-up
const tickNs = { big: [] as number[], small: [] as number[] };
const expireMs = { big: [] as number[], small: [] as number[] };
for (let r = 0; r < rounds; r++) {
  const order = r % 2 === 0 ? (['big', 'small'] as const) : (['small', 'big'] as const);
  for (const which of order) tickNs[which].push(tick(which === 'big' ? large : smallOne));
}
expireAll(smallOne, -1); // warm-up
for (let r = 0; r < rounds; r++) {
  const order = r % 2 === 0 ? (['big', 'small'] as const) : (['small', 'big'] as const);
  for (const which of order) expireMs[which].push(expireAll(which === 'big' ? large : smallOne, r));
}
const stats = large.engine.stats();
if (stats.held !== big) throw new Error(`expected ${big} held, found ${stats.held}`);
process.stdout.write(`${JSON.stringify({ big, small, ticks, expire, acquireMs, bytesPerClaim, tickNs, expireMs, held: stats.held })}\n`);
