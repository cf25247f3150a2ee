/**
 * 4. Engine scale, in a child process (--expose-gc --max-old-space-size=4096): memory per held
 * space claim at 1,000,000 claims, the cost of a clock tick with nothing expiring at 1,000 vs
 * 1,000,000 held (should be flat), and the cost of expiring 10,000 leases at once.
 */
import { runJsonChild } from './lib/child.js';
import { pairedRatios, single, summarize } from './lib/stats.js';
import { finishRow, ratioTarget, valueTarget, type Benchmark } from './lib/types.js';

interface ChildResult {
  big: number;
  small: number;
  ticks: number;
  expire: number;
  acquireMs: number;
  bytesPerClaim: number;
  tickNs: { big: number[]; small: number[] };
  expireMs: { big: number[]; small: number[] };
}

export const engineScale: Benchmark = {
  name: 'engine',
  title: '4. Engine scale — in process on a manual clock, in a child process with --expose-gc --max-old-space-size=4096',
  async run(ctx) {
    const big = ctx.quick ? 20_000 : 1_000_000;
    const small = 1_000;
    const ticks = ctx.quick ? 100_000 : 2_000_000;
    const expire = ctx.quick ? 1_000 : 10_000;
    const rounds = ctx.quick ? 1 : ctx.rounds + 2;
    ctx.log(`engine: ${big} claims in a child process`);
    const r = await runJsonChild<ChildResult>(
      'bench/engine-scale.child.ts',
      [big, small, ticks, rounds, expire].map(String),
      ['--expose-gc', '--max-old-space-size=4096'],
    );
    const nBig = big.toLocaleString('en-US');
    const nSmall = small.toLocaleString('en-US');
    const nExpire = expire.toLocaleString('en-US');
    return {
      rows: [
        finishRow({
          bench: 'engine',
          label: `memory per held space claim at ${nBig}`,
          unit: 'B',
          value: single(r.bytesPerClaim),
          target: valueTarget('<', 1024, 'B'),
        }),
        finishRow({
          bench: 'engine',
          label: `acquire (engine.claims.acquire) up to ${nBig}`,
          unit: 'µs/claim',
          value: single((r.acquireMs * 1000) / big),
        }),
        finishRow({
          bench: 'engine',
          label: `tick, nothing due, ${nBig} held`,
          unit: 'ns',
          value: summarize(r.tickNs.big),
          baseline: { label: `${nSmall} held`, value: summarize(r.tickNs.small) },
          ratio: summarize(pairedRatios(r.tickNs.big, r.tickNs.small)),
          target: ratioTarget('<=', 1.5),
        }),
        finishRow({
          bench: 'engine',
          label: `expire ${nExpire} at once, ${nBig} held`,
          unit: 'ms',
          value: summarize(r.expireMs.big),
          baseline: { label: `${nSmall} held`, value: summarize(r.expireMs.small) },
          ratio: summarize(pairedRatios(r.expireMs.big, r.expireMs.small)),
        }),
      ],
      notes: [
        `memory: heapUsed after full GCs before and after acquiring ${nBig} claims (one space, one credential, keys k/0…), ÷ ${nBig}`,
        `tick: ${ticks.toLocaleString('en-US')} × (clock.advance(1 µs); engine.processExpirations()), ns each; target "flat": ratio ≤ 1.5; ${rounds} rounds alternating`,
        `expiry: ${nExpire} extra claims acquired for 5 s, clock advanced 5.001 s, one processExpirations() timed (they become tombstones); ${rounds} rounds`,
      ],
    };
  },
};
