/**
 * 1. Client overhead: one renew call (`renewSpaceClaim`) through `@leasehold/client` vs the same
 * request through raw `undici.request` on the same kind of keep-alive `Pool` (the floor) and vs
 * `openapi-fetch` over global `fetch` (the typed-client alternative). Calls are sequential; the
 * reference server runs in a child process, so the CPU measured here is the client's.
 */
import { randomUUID } from 'node:crypto';
import createClient from 'openapi-fetch';
import { Pool, request } from 'undici';
import type { paths } from '../packages/protocol/src/index.js';
import { startReferenceServer } from './lib/child.js';
import { acquireRaw, API_KEY, claimsPath, RUN_ID, SPACE_ID } from './lib/fixtures.js';
import { cpuMicros, interleaved } from './lib/measure.js';
import { benchRun, newClient, SDK_BUILD } from './lib/sdk.js';
import { pairedRatios, summarize } from './lib/stats.js';
import { finishRow, ratioTarget, type Benchmark, type Row } from './lib/types.js';

const BODY_LEASE_SECONDS = 600;

export const clientOverhead: Benchmark = {
  name: 'client',
  title: '1. Client overhead — one renew call (POST /v1/spaces/{id}/claims/{key}/renew), sequential, server in a child process',
  async run(ctx) {
    const calls = ctx.quick ? 30 : 2_000;
    const warmup = ctx.quick ? 10 : 1_000;
    const rounds = ctx.quick ? 1 : ctx.rounds + 2;
    const server = await startReferenceServer();
    const origin = server.url;
    const pools = [new Pool(origin, { connections: 4 }), new Pool(origin, { connections: 4 }), new Pool(origin, { connections: 1 })] as const;
    const [sdkPool, rawPool, setupPool] = pools;
    try {
      const rawClaim = await acquireRaw(setupPool, origin, 'overhead-raw');
      const oafClaim = await acquireRaw(setupPool, origin, 'overhead-openapi-fetch');

      // heartbeatTtlSeconds 600: the lease is acquired and renewed for 600 s like the others', and
      // the background heartbeat (every 200 s) stays out of the measurement.
      const lh = await newClient(origin, { dispatcher: sdkPool }, { heartbeatTtlSeconds: BODY_LEASE_SECONDS });
      const lease = await benchRun(lh).claim('overhead-sdk').acquire();

      const rawUrl = `${origin}${claimsPath('overhead-raw', 'renew')}`;
      const rawBody = JSON.stringify({ token: rawClaim.token, leaseSeconds: BODY_LEASE_SECONDS });
      const raw = async () => {
        const res = await request(rawUrl, {
          dispatcher: rawPool,
          method: 'POST',
          headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
          body: rawBody,
        });
        const data = (await res.body.json()) as { status?: string };
        if (res.statusCode !== 200) throw new Error(`raw renew: ${res.statusCode} ${JSON.stringify(data)}`);
      };

      const typed = createClient<paths>({ baseUrl: origin, headers: { Authorization: `Bearer ${API_KEY}` } });
      const openapiFetch = async () => {
        const { data, error, response } = await typed.POST('/v1/spaces/{spaceId}/claims/{key}/renew', {
          params: { path: { spaceId: SPACE_ID, key: 'overhead-openapi-fetch' }, header: { 'Idempotency-Key': randomUUID() } },
          body: { token: oafClaim.token, leaseSeconds: BODY_LEASE_SECONDS },
        });
        if (!data) throw new Error(`openapi-fetch renew: ${response.status} ${JSON.stringify(error)}`);
      };

      const candidates = { sdk: () => lease.renew(), raw, openapiFetch };
      for (const fn of Object.values(candidates)) for (let i = 0; i < warmup; i++) await fn();

      const cpu: Record<keyof typeof candidates, number[]> = { sdk: [], raw: [], openapiFetch: [] };
      const measureOne = (name: keyof typeof candidates) => async () => {
        const fn = candidates[name];
        const c0 = cpuMicros();
        const t0 = performance.now();
        for (let i = 0; i < calls; i++) await fn();
        const wallUs = ((performance.now() - t0) * 1000) / calls;
        cpu[name].push((cpuMicros() - c0) / calls);
        return wallUs;
      };
      ctx.log(`client: ${rounds} rounds × ${calls} calls per candidate`);
      const wall = await interleaved(rounds, { sdk: measureOne('sdk'), raw: measureOne('raw'), openapiFetch: measureOne('openapiFetch') });
      await lease.release();
      await lh.close();

      const row = (label: string, unit: string, samples: Record<keyof typeof candidates, number[]>, vs: 'raw' | 'openapiFetch'): Row =>
        finishRow({
          bench: 'client',
          label,
          unit,
          value: summarize(samples.sdk),
          baseline: { label: vs === 'raw' ? 'raw undici.request' : 'openapi-fetch', value: summarize(samples[vs]) },
          ratio: summarize(pairedRatios(samples.sdk, samples[vs])),
          target: vs === 'raw' ? ratioTarget('<=', 1.15) : ratioTarget('<', 1),
        });
      return {
        rows: [
          row('renew: wall per call vs floor', 'µs', wall, 'raw'),
          row('renew: wall per call vs typed alt.', 'µs', wall, 'openapiFetch'),
          row('renew: client CPU per call vs floor', 'µs', cpu, 'raw'),
          row('renew: client CPU per call vs typed alt.', 'µs', cpu, 'openapiFetch'),
        ],
        notes: [
          `client: lease.renew() on a lease from new Leasehold({ dispatcher: Pool }).space(…).run(…).claim(key).acquire(), ${SDK_BUILD}; ${rounds} rounds × ${calls} sequential calls each, order rotating per round, after ${warmup} warm-up calls each`,
          'all three send Authorization, JSON body {token, leaseSeconds} and a fresh Idempotency-Key (the SDK sends one on every POST), so the server does the same work',
          'raw undici and the SDK each use their own undici Pool(4 connections, keep-alive); openapi-fetch uses global fetch (Node\'s bundled undici Agent)',
          'wall = latency of one call including the server\'s time; CPU = this process\'s user+system time per call (the server is another process)',
        ],
      };
    } finally {
      await Promise.all(pools.map((p) => p.close()));
      await server.close();
    }
  },
};
