/**
 * 2. Reference server throughput over HTTP keep-alive with 32 connections, load from autocannon
 * in this process, each server in its own child process: renew requests/s (and acquire+release
 * pairs/s) vs a bare `node:http` server that parses the same JSON body and answers a fixed body.
 */
import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';
import { Pool } from 'undici';
import { startReferenceServer, startServerProcess, type ServerProcess } from './lib/child.js';
import { acquireRaw, API_KEY, claimsPath, RUN_ID } from './lib/fixtures.js';
import { interleaved } from './lib/measure.js';
import { pairedRatios, summarize } from './lib/stats.js';
import { finishRow, ratioTarget, type Benchmark, type Row } from './lib/types.js';

const CONNECTIONS = 32;
const HEADERS = { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' };

interface Scenario {
  /** Requests per unit reported (2 for a pair). */
  requestsPerUnit: number;
  options(origin: string, token: string): autocannon.Options;
}

/** A renew of one claim, the same bytes every time (no Idempotency-Key: optional on renew). */
const renew: Scenario = {
  requestsPerUnit: 1,
  options: (origin, token) => ({
    url: `${origin}${claimsPath('renew-target', 'renew')}`,
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({ token, leaseSeconds: 600 }),
  }),
};

/** The same renew with a fresh Idempotency-Key per request, as the SDK sends it. */
const renewIdempotent: Scenario = {
  requestsPerUnit: 1,
  options: (origin, token) => ({
    url: origin,
    requests: [
      {
        method: 'POST',
        path: claimsPath('renew-target', 'renew'),
        body: JSON.stringify({ token, leaseSeconds: 600 }),
        setupRequest: (req) => ({ ...req, headers: { ...HEADERS, 'idempotency-key': randomUUID() } }),
      },
    ],
  }),
};

/** What one connection remembers between its acquire and its release. */
interface PairContext {
  key?: string;
  token?: string | undefined;
}

/** Acquire a key, release it with the token from the answer; each connection loops. */
function acquireRelease(): Scenario {
  const free: string[] = [];
  let next = 0;
  return {
    requestsPerUnit: 2,
    options: (origin) => ({
      url: origin,
      requests: [
        {
          method: 'POST',
          path: claimsPath(),
          setupRequest: (req, context) => {
            const key = free.pop() ?? `pair-${next++}`;
            (context as PairContext).key = key;
            return {
              ...req,
              headers: { ...HEADERS, 'idempotency-key': randomUUID() },
              body: JSON.stringify({ key, scopeId: RUN_ID, holder: 'bench', holderSession: 'bench-session', leaseSeconds: 30 }),
            };
          },
          onResponse: (status, body, context) => {
            (context as PairContext).token = status === 201 ? (JSON.parse(body) as { token: string }).token : undefined;
          },
        },
        {
          method: 'POST',
          setupRequest: (req, context) => ({
            ...req,
            path: claimsPath(String((context as PairContext).key), 'release'),
            headers: HEADERS,
            body: JSON.stringify({ token: (context as PairContext).token }),
          }),
          onResponse: (_status, _body, context) => {
            free.push(String((context as PairContext).key));
          },
        },
      ],
    }),
  };
}

interface Shot {
  /** Units (requests or pairs) per second, 2xx answers only. */
  rate: number;
  errors: number;
  non2xx: number;
}

async function fire(options: autocannon.Options, seconds: number, requestsPerUnit: number): Promise<Shot> {
  // sampleInt 100 ms: autocannon stops at the first sample after `duration`, so this keeps runs tight.
  const result = await autocannon({ connections: CONNECTIONS, pipelining: 1, duration: seconds, sampleInt: 100, ...options });
  const ok = result['2xx'];
  return { rate: ok / requestsPerUnit / result.duration, errors: result.errors + result.timeouts, non2xx: result.non2xx };
}

export const serverThroughput: Benchmark = {
  name: 'throughput',
  title: `2. Reference server throughput — HTTP keep-alive, ${CONNECTIONS} connections, autocannon in the parent, each server in a child process`,
  async run(ctx) {
    const seconds = ctx.quick ? 0.3 : 2;
    const warmSeconds = 1;
    const rounds = ctx.quick ? 1 : ctx.rounds;
    let reference: ServerProcess | undefined;
    let quiet: ServerProcess | undefined;
    let ceiling: ServerProcess | undefined;
    const setup = { pool: undefined as Pool | undefined, quietPool: undefined as Pool | undefined };
    try {
      // The CLI as shipped (metrics on, request log at info to a drained pipe) and with the log off.
      [reference, quiet, ceiling] = await Promise.all([
        startReferenceServer(),
        startReferenceServer(['--log-level', 'silent']),
        startServerProcess('bench/servers/ceiling-server.ts'),
      ]);
      setup.pool = new Pool(reference.url, { connections: 1 });
      // leaseSeconds 600 on a real clock, and every renew extends it again: valid for the whole run.
      const claim = await acquireRaw(setup.pool, reference.url, 'renew-target', { leaseSeconds: 600 });
      setup.quietPool = new Pool(quiet.url, { connections: 1 });
      const quietClaim = await acquireRaw(setup.quietPool, quiet.url, 'renew-target', { leaseSeconds: 600 });
      const silent = quiet;
      const ref = reference;
      const top = ceiling;
      const bad: string[] = [];
      const shot = (server: ServerProcess, scenario: Scenario, name: string) => async () => {
        const s = await fire(scenario.options(server.url, server === silent ? quietClaim.token : claim.token), seconds, scenario.requestsPerUnit);
        if (s.errors > 0 || (s.non2xx > 0 && server !== top)) bad.push(`${name}: ${s.errors} errors, ${s.non2xx} non-2xx`);
        return s.rate;
      };
      const pairsRef = acquireRelease();
      const pairsTop = acquireRelease();
      if (!ctx.quick) {
        ctx.log('throughput: warm-up');
        for (const s of [renew, renewIdempotent, pairsRef]) await fire(s.options(ref.url, claim.token), warmSeconds, 1);
        for (const s of [renew, renewIdempotent, pairsTop]) await fire(s.options(top.url, claim.token), warmSeconds, 1);
        await fire(renew.options(silent.url, quietClaim.token), warmSeconds, 1);
      }
      ctx.log(`throughput: ${rounds} rounds × 7 runs × ${seconds} s`);
      const r = await interleaved(rounds, {
        renewRef: shot(ref, renew, 'renew/reference'),
        renewQuiet: shot(silent, renew, 'renew/reference --log-level silent'),
        renewTop: shot(top, renew, 'renew/ceiling'),
        idemRef: shot(ref, renewIdempotent, 'renew+key/reference'),
        idemTop: shot(top, renewIdempotent, 'renew+key/ceiling'),
        pairsRef: shot(ref, pairsRef, 'pairs/reference'),
        pairsTop: shot(top, pairsTop, 'pairs/ceiling'),
      });
      const row = (label: string, unit: string, a: number[], b: number[], target: boolean): Row =>
        finishRow({
          bench: 'throughput',
          label,
          unit,
          value: summarize(a),
          baseline: { label: 'bare node:http', value: summarize(b) },
          ratio: summarize(pairedRatios(a, b)),
          target: target ? ratioTarget('>=', 0.7) : undefined,
        });
      return {
        rows: [
          row('renew', 'req/s', r.renewRef, r.renewTop, true),
          row('renew, request log off (--log-level silent)', 'req/s', r.renewQuiet, r.renewTop, false),
          row('renew + fresh Idempotency-Key (as the SDK)', 'req/s', r.idemRef, r.idemTop, false),
          row('acquire+release pairs', 'pairs/s', r.pairsRef, r.pairsTop, false),
        ],
        notes: [
          'reference = the CLI as shipped (packages/server/dist/cli.js): /metrics on, one JSON request log line per request at info (stdout, drained); the second renew row turns the log off',
          `${rounds} rounds × ${seconds} s per run, order rotating; only 2xx answers counted; ceiling = bench/servers/ceiling-server.ts (reads + JSON.parse the body, fixed 370-byte claim-shaped answer)`,
          'the renew target claim was acquired with leaseSeconds 600 on the real clock and every renew extends it',
          'the ceiling answers every request of a scenario with the same fixed body, so the acquire+release ceiling is the same request mix with no state',
          ...(bad.length ? [`WARNING: ${bad.join('; ')}`] : []),
        ],
      };
    } finally {
      await setup.pool?.close();
      await setup.quietPool?.close();
      await Promise.all([reference?.close(), quiet?.close(), ceiling?.close()]);
    }
  },
};
