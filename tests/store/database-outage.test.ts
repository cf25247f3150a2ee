/**
 * A database outage mid-traffic, on a PostgreSQL cluster of this file's own (halted and resumed;
 * the run's shared cluster is never touched): while lanes of writes run, the cluster is taken
 * down at once (`pg_ctl stop -m immediate`: every connection dropped). Every answer is a 2xx or a
 * 503 canonical envelope with `Retry-After` — never a 500 — and nothing is half-written: each
 * write answered 503 either left nothing (its key is free, its retry creates it fresh) or
 * committed whole (its retry with the same Idempotency-Key replays it); no task exists twice.
 * When the cluster is back, service resumes without a restart. At start, a database that is not
 * there (a wrong name on a live cluster, a cluster that is down) is a clear message and exit 1.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLeaseholdServer, listen, openStore, type NodeListener, type Store } from '../../packages/server/src/index.js';
import { spawnCli } from '../support/cli-process.js';
import { envelopeProblems } from '../support/leasehold-harness.js';
import { startPostgresCluster, type PostgresCluster } from '../support/postgres-cluster.js';

const ADMIN = 'lh_test_admin';
const SPACE = '6f1c2b9e-8d4a-4c1e-9b7a-3e2f1d0c9b8a';
const SCOPE = '0b7e4c6a-1f2d-4e3b-8a9c-5d6e7f8a9b0c';

let cluster: PostgresCluster;
let url: string;
beforeAll(async () => {
  cluster = await startPostgresCluster({ maxConnections: 40, durable: true });
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  await admin.query('CREATE DATABASE outage');
  await admin.end();
  url = cluster.urlOf('outage');
}, 60_000);
afterAll(() => cluster?.stop());

interface Exchange {
  kind: 'claim' | 'task';
  request: Record<string, unknown>;
  idem: string;
  status: number;
  retryAfter: string | null;
  body: any;
  problems: string[];
}

async function send(origin: string, method: string, path: string, json?: unknown, idem?: string) {
  const headers: Record<string, string> = { authorization: `Bearer ${ADMIN}` };
  if (json !== undefined) headers['content-type'] = 'application/json';
  if (idem !== undefined) headers['idempotency-key'] = idem;
  const response = await fetch(`${origin}${path}`, { method, headers, body: json === undefined ? undefined : JSON.stringify(json) });
  const text = await response.text();
  const body = text === '' ? undefined : JSON.parse(text);
  return { status: response.status, headers: response.headers, body };
}

/** One write of a lane: acquire a new key, or create a task, with an Idempotency-Key. */
async function write(origin: string, kind: Exchange['kind']): Promise<Exchange> {
  const idem = `idem-${randomUUID()}`;
  const request =
    kind === 'claim' ? { key: `k-${randomUUID()}`, scopeId: SCOPE, holder: 'outage', holderSession: 'sess-outage' } : { title: `outage ${randomUUID()}` };
  const answer = await send(origin, 'POST', kind === 'claim' ? `/v1/spaces/${SPACE}/claims` : '/v1/tasks', request, idem);
  const problems = answer.status >= 400 ? envelopeProblems({ status: answer.status, headers: answer.headers, body: answer.body }) : [];
  return { kind, request, idem, status: answer.status, retryAfter: answer.headers.get('retry-after'), body: answer.body, problems };
}

async function allTasks(origin: string): Promise<{ id: number; title: string }[]> {
  const tasks: { id: number; title: string }[] = [];
  for (let cursor: string | null = null, first = true; first || cursor !== null; first = false) {
    const page = await send(origin, 'GET', `/v1/tasks?limit=100${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`);
    expect(page.status).toBe(200);
    tasks.push(...(page.body.data as { id: number; title: string }[]));
    cursor = page.body.nextCursor as string | null;
  }
  return tasks;
}

describe('the database down mid-traffic', () => {
  let store: Store;
  let listener: NodeListener;
  beforeAll(async () => {
    store = await openStore(url, { poolSize: 4, statementTimeoutMs: 2_000, sweepIntervalMs: 0 });
    listener = await listen(createLeaseholdServer({ store }), { port: 0 });
  });
  afterAll(async () => {
    await listener?.close();
    await store?.close();
  });

  it('answers 503 with Retry-After (never 500), half-writes nothing, and serves again once the database is back', async () => {
    const origin = listener.url;
    const exchanges: Exchange[] = [];
    let phase: 'up' | 'down' | 'back' | 'done' = 'up';
    const byPhase = { up: [] as Exchange[], down: [] as Exchange[], back: [] as Exchange[] };
    const lane = async (n: number) => {
      for (let i = 0; phase !== 'done'; i++) {
        // The phase the write started in (the loop condition narrowed it: not 'done').
        const at: keyof typeof byPhase = phase;
        const exchange = await write(origin, (n + i) % 3 === 0 ? 'task' : 'claim');
        exchanges.push(exchange);
        byPhase[at].push(exchange);
        if (exchange.status === 503) await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const lanes = Promise.all([0, 1, 2, 3].map(lane));
    const until = async (done: () => boolean, ms: number) => {
      for (const started = performance.now(); !done() && performance.now() - started < ms; ) await new Promise((r) => setTimeout(r, 10));
    };
    await until(() => byPhase.up.filter((e) => e.status < 300).length >= 20, 10_000);
    phase = 'down';
    cluster.halt();
    await until(() => byPhase.down.filter((e) => e.status === 503).length >= 20, 15_000);
    cluster.resume();
    phase = 'back';
    await until(() => byPhase.back.filter((e) => e.status < 300).length >= 20, 20_000);
    phase = 'done';
    await lanes;

    const statuses: Record<number, number> = {};
    for (const e of exchanges) statuses[e.status] = (statuses[e.status] ?? 0) + 1;
    console.log(`database outage: answers by status ${JSON.stringify(statuses)}`);
    expect(Object.keys(statuses).map(Number).filter((s) => s !== 200 && s !== 201 && s !== 503), JSON.stringify(statuses)).toEqual([]);
    expect(byPhase.down.filter((e) => e.status === 503).length).toBeGreaterThanOrEqual(20);
    expect(byPhase.back.filter((e) => e.status < 300).length, 'service resumed').toBeGreaterThanOrEqual(20);
    for (const e of exchanges.filter((x) => x.status === 503)) {
      expect(e.problems, JSON.stringify(e.body)).toEqual([]);
      expect(e.body.type).toBe('unavailable_error');
      expect(Number(e.retryAfter), 'Retry-After').toBeGreaterThan(0);
    }

    // Nothing half-written: each 503'd write left nothing or committed whole, and its retry says which.
    for (const e of exchanges.filter((x) => x.status === 503)) {
      if (e.kind === 'claim') {
        const key = String(e.request.key);
        const before = await send(origin, 'GET', `/v1/spaces/${SPACE}/claims/${encodeURIComponent(key)}`);
        expect([200, 404], JSON.stringify(before.body)).toContain(before.status);
        const retry = await send(origin, 'POST', `/v1/spaces/${SPACE}/claims`, e.request, e.idem);
        expect(retry.status, JSON.stringify(retry.body)).toBe(201);
        if (before.status === 200) expect([retry.headers.get('idempotent-replayed'), retry.body.claimId]).toEqual(['true', before.body.claimId]);
        else expect(retry.headers.get('idempotent-replayed')).toBeNull();
      } else {
        const retry = await send(origin, 'POST', '/v1/tasks', e.request, e.idem);
        expect(retry.status, JSON.stringify(retry.body)).toBe(201);
      }
    }
    const titles = (await allTasks(origin)).map((t) => t.title);
    const wanted = exchanges.filter((e) => e.kind === 'task').map((e) => String(e.request.title));
    const missing = exchanges.filter((e) => e.kind === 'task' && !titles.includes(String(e.request.title))).map((e) => `${e.status} ${JSON.stringify(e.body)}`);
    expect(missing, 'every task there').toEqual([]);
    expect(titles.filter((t) => wanted.includes(t)).sort(), 'every task once, none twice').toEqual([...wanted].sort());
  }, 90_000);
});

describe('no database at start', () => {
  it('exits 1 with a clear message for a database that does not exist on a live cluster', async () => {
    const cli = spawnCli(['--port', '0', '--store', cluster.urlOf('no_such_database')]);
    expect(await cli.exited).toBe(1);
    expect(cli.output()).toMatch(/Cannot connect to PostgreSQL at postgres:\/\/postgres@127\.0\.0\.1:\d+\/no_such_database: 3D000/);
    expect(cli.output()).not.toMatch(/listening on/);
  }, 30_000);

  it('exits 1 with a clear message while the cluster is down, and starts once it is back', async () => {
    cluster.halt();
    try {
      const cli = spawnCli(['--port', '0', '--store', url]);
      expect(await cli.exited).toBe(1);
      expect(cli.output()).toMatch(/Cannot connect to PostgreSQL at postgres:\/\/postgres@127\.0\.0\.1:\d+\/outage: ECONNREFUSED/);
    } finally {
      cluster.resume();
    }
    const again = spawnCli(['--port', '0', '--store', url]);
    try {
      await again.listening(30_000);
    } finally {
      await again.stop();
    }
    expect(await again.exited).toBe(0);
  }, 60_000);
});
