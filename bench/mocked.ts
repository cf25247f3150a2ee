/**
 * 5. Mocked test speed: acquire+release round trips/s through the SDK against one in-process
 * reference server, reached three ways: MSW handlers (`setupServer` + global fetch), the
 * in-process undici `LeaseholdDispatcher`, and real HTTP to the same server on `node:http`.
 */
import { setupServer } from 'msw/node';
import { Pool } from 'undici';
import { listen } from '../packages/server/src/adapters/node-http/listen.js';
import { interleaved } from './lib/measure.js';
import { benchRun, newClient, SDK_BUILD, type Leasehold, type Wire } from './lib/sdk.js';
import { pairedRatios, summarize } from './lib/stats.js';
import { finishRow, type Benchmark, type Row } from './lib/types.js';

const MOCK_BASE = 'http://leasehold.test';

export const mockedSpeed: Benchmark = {
  name: 'mocked',
  title: '5. Mocked test speed — acquire+release round trips through the SDK, sequential, one in-process reference server (createLeaseholdMockServer)',
  async run(ctx) {
    const trips = ctx.quick ? 20 : 500;
    const warmup = ctx.quick ? 5 : 300;
    const rounds = ctx.quick ? 1 : ctx.rounds;
    // Loaded here, not at the top: if @leasehold/msw cannot load, only this benchmark fails.
    const [{ createLeaseholdHandlers, createLeaseholdMockServer }, { LeaseholdDispatcher }] = await Promise.all([
      import('../packages/msw/src/index.js'),
      import('../packages/msw/src/dispatcher.js'),
    ]).catch((error: unknown) => {
      throw new Error(`@leasehold/msw could not be loaded: ${(error as Error).message}`);
    });
    // One server (manual clock) behind all four ways, as @leasehold/msw recommends for sharing.
    const server = createLeaseholdMockServer();
    const listener = await listen(server, { port: 0 });
    const pool = new Pool(listener.url, { connections: 4 });
    const dispatcher = new LeaseholdDispatcher({ baseUrl: MOCK_BASE, server });
    const { handlers } = createLeaseholdHandlers({ baseUrl: MOCK_BASE, server });
    const clients: Leasehold[] = [];
    const client = async (baseUrl: string, wire: Wire) => {
      const lh = await newClient(baseUrl, wire);
      clients.push(lh);
      return benchRun(lh);
    };
    // `fetch: globalThis.fetch` makes the SDK look fetch up on every call, so MSW's patch is seen.
    const runs = {
      msw: await client(MOCK_BASE, { fetch: globalThis.fetch }),
      httpFetch: await client(listener.url, { fetch: globalThis.fetch }),
      dispatcher: await client(MOCK_BASE, { dispatcher }),
      httpUndici: await client(listener.url, { dispatcher: pool }),
    };
    type Name = keyof typeof runs;
    const trip = async (name: Name, i: number) => {
      const lease = await runs[name].claim(`mock-${name}-${i % 16}`).acquire();
      await lease.release();
    };
    const withMsw = async <T>(fn: () => Promise<T>): Promise<T> => {
      const msw = setupServer(...handlers);
      msw.listen({ onUnhandledRequest: 'error' });
      try {
        return await fn();
      } finally {
        msw.close();
      }
    };
    const measure = (name: Name) => async () => {
      const go = async () => {
        const t0 = performance.now();
        for (let i = 0; i < trips; i++) await trip(name, i);
        return (trips * 1000) / (performance.now() - t0);
      };
      return name === 'msw' ? withMsw(go) : go();
    };
    try {
      for (const name of Object.keys(runs) as Name[]) {
        const warm = async () => {
          for (let i = 0; i < warmup; i++) await trip(name, i);
        };
        await (name === 'msw' ? withMsw(warm) : warm());
      }
      ctx.log(`mocked: ${rounds} rounds × 4 ways × ${trips} round trips`);
      const r = await interleaved(rounds, {
        msw: measure('msw'),
        httpFetch: measure('httpFetch'),
        dispatcher: measure('dispatcher'),
        httpUndici: measure('httpUndici'),
      });
      const row = (label: string, a: number[], baseLabel: string, b: number[]): Row =>
        finishRow({
          bench: 'mocked',
          label,
          unit: 'rt/s',
          value: summarize(a),
          baseline: { label: baseLabel, value: summarize(b) },
          ratio: summarize(pairedRatios(a, b)),
        });
      return {
        rows: [
          row('MSW handlers + global fetch', r.msw, 'real HTTP, fetch', r.httpFetch),
          row('LeaseholdDispatcher (undici, in process)', r.dispatcher, 'real HTTP, undici Pool', r.httpUndici),
        ],
        notes: [
          `one round trip = claim(key).acquire() + lease.release() through new Leasehold({ fetch | dispatcher }) (${SDK_BUILD}); ${rounds} rounds × ${trips} sequential round trips per way, order rotating, after ${warmup} warm-up trips`,
          'all four ways answer from the same LeaseholdServer instance; "real HTTP" is that server on node:http at 127.0.0.1 in this process (MSW is not listening then)',
          'MSW: setupServer(...createLeaseholdHandlers({ baseUrl, server }).handlers), listening only around its own measurement',
        ],
      };
    } finally {
      await Promise.all(clients.map((c) => c.close({ releaseLeases: false })));
      await dispatcher.close();
      await pool.close();
      await listener.close();
    }
  },
};
