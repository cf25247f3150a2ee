/**
 * The operational endpoints (docs/operating.md) on every store of the matrix: /healthz,
 * /readyz (the store's readiness, 503 while draining) and /metrics, scraped and parsed as the
 * Prometheus text format.
 */
import parsePrometheusTextFormat, { type MetricFamily } from 'parse-prometheus-text-format';
import { afterEach, describe, expect, it } from 'vitest';
import { ServerMetrics } from '../../packages/server/src/index.js';
import { SPACE, expectStatus, startServer, stopServers, type TestServer } from '../support/leasehold-harness.js';
import { TEST_STORE } from '../support/test-store.js';

afterEach(stopServers);

async function scrape(server: TestServer): Promise<Map<string, MetricFamily>> {
  const response = await fetch(`${server.origin}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  const families = parsePrometheusTextFormat(await response.text());
  return new Map(families.map((family) => [family.name, family]));
}

function value(families: Map<string, MetricFamily>, name: string, labels: Record<string, string> = {}): number {
  const family = families.get(name);
  if (family === undefined) throw new Error(`no metric ${name}`);
  const metric = family.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  if (metric === undefined) throw new Error(`no ${name} with ${JSON.stringify(labels)}`);
  return Number(metric.value ?? metric.count);
}

describe('operational endpoints', () => {
  it('/healthz answers 200 without an API key, under every base path', async () => {
    const server = await startServer();
    for (const path of ['/healthz', '/api/healthz']) {
      const answer = await server.raw(path);
      expect(answer.status, path).toBe(200);
      expect(answer.body).toEqual({ status: 'ok' });
    }
  });

  it('/readyz answers 200 when the store can serve, and 503 with Retry-After once the server drains', async () => {
    const server = await startServer();
    const ready = await server.raw('/readyz');
    expect(ready.status).toBe(200);
    expect((ready.body as { status: string }).status).toBe('ready');
    server.server.drain();
    const draining = await server.raw('/readyz');
    expect(draining.status).toBe(503);
    expect(draining.headers.get('retry-after')).toBe('1');
    expect((draining.body as { code: string }).code).toBe('service_unavailable');
    // Liveness is unaffected: the process still answers.
    expect((await server.raw('/healthz')).status).toBe(200);
  });

  it('/metrics is absent unless the server is built with metrics', async () => {
    const server = await startServer();
    expect((await server.raw('/metrics')).status).toBe(404);
  });

  it('/metrics counts answers by operation and status, grants, heartbeat sizes, replays and leases held', async () => {
    const metrics = new ServerMetrics({ processMetrics: false });
    const server = await startServer({ metrics });
    const first = await server.acquire('report', {}, { idempotencyKey: 'acq-1' });
    expectStatus(first, 201);
    const replay = await server.call('acquireSpaceClaim', {
      path: { spaceId: SPACE },
      idempotencyKey: 'acq-1',
      json: { key: 'report', scopeId: first.body.scopeId, holder: 'worker-1', holderSession: 'sess-1' },
    });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    await server.acquire('other');
    expectStatus(await server.call('heartbeatClaims', { json: { ttl: 30 } }), 200);
    expect((await server.raw('/v1/nowhere')).status).toBe(404);

    const families = await scrape(server);
    expect(value(families, 'leasehold_http_requests_total', { operation: 'acquireSpaceClaim', status: '201' })).toBe(3);
    expect(value(families, 'leasehold_http_requests_total', { operation: 'heartbeatClaims', status: '200' })).toBe(1);
    expect(value(families, 'leasehold_http_requests_total', { operation: 'unrouted', status: '404' })).toBe(1);
    expect(families.get('leasehold_http_request_duration_seconds')?.type).toBe('HISTOGRAM');
    // The parser keeps no labels of a labelled histogram: read its count from the registry.
    const latency = await metrics.requestDuration.get();
    const acquireCount = latency.values.find((v) => v.metricName === 'leasehold_http_request_duration_seconds_count' && v.labels.operation === 'acquireSpaceClaim');
    expect(acquireCount?.value).toBe(3);
    expect(value(families, 'leasehold_lease_grants_total', { kind: 'space' })).toBe(3);
    expect(value(families, 'leasehold_idempotent_replays_total', { operation: 'acquireSpaceClaim' })).toBe(1);
    const heartbeat = families.get('leasehold_heartbeat_leases')?.metrics[0];
    expect(Number(heartbeat?.count)).toBe(1);
    expect(Number(heartbeat?.sum)).toBe(2);
    expect(value(families, 'leasehold_leases_held', { kind: 'space' })).toBe(2);
    expect(value(families, 'leasehold_leases_held', { kind: 'task' })).toBe(0);
    if (server.server.store.kind === 'postgres') {
      // The pool is in use (the requests above opened connections; they idle in the pool).
      expect(value(families, 'leasehold_db_pool_max_connections')).toBeGreaterThan(0);
      expect(value(families, 'leasehold_db_pool_connections')).toBeGreaterThan(0);
      expect(families.has('leasehold_db_pool_waiting_requests')).toBe(true);
    }
  });

  it('/metrics counts leases reported lost to their holders', async () => {
    const metrics = new ServerMetrics({ processMetrics: false });
    const server = await startServer({ metrics });
    const claim = await server.acquire('lost-one');
    await server.control.loseLease(claim.body.claimId as string);
    const heartbeat = await server.call('heartbeatClaims', { json: { ttl: 30, claimIds: [claim.body.claimId] } });
    expectStatus(heartbeat, 200);
    expect(JSON.stringify(heartbeat.body)).toContain('"lost"');
    const families = await scrape(server);
    expect(value(families, 'leasehold_lease_losses_total', { operation: 'heartbeatClaims' })).toBe(1);
  });

  it('an idle server reads 0 checkouts waiting for the pool (a scrape never counts its own statement)', async () => {
    const metrics = new ServerMetrics({ processMetrics: false });
    const server = await startServer({ metrics });
    await server.acquire('one');
    for (let round = 0; round < 3; round++) {
      const families = await scrape(server);
      expect(value(families, 'leasehold_db_pool_waiting_requests'), `scrape ${round}`).toBe(0);
      expect(value(families, 'leasehold_leases_held', { kind: 'space' })).toBe(1);
    }
    if (server.server.store.kind === 'postgres') {
      // The store's own view agrees on an idle pool.
      expect(server.server.store.poolUsage()).toMatchObject({ waiting: 0 });
    }
  });

  // Only a SQL store has connections to run out of (the memory store never waits): the case exists
  // on the SQL projects only, rather than showing as skipped on the memory one.
  const sqlOnly = (name: string, body: () => Promise<void>): void => {
    if (TEST_STORE !== 'memory') it(name, body);
  };
  sqlOnly('with every connection busy, /healthz and /metrics answer 200 at once and /readyz a 503 within its bound', async () => {
    const metrics = new ServerMetrics({ processMetrics: false, storeReadTimeoutMs: 100 });
    const server = await startServer({ metrics, readinessTimeoutMs: 100 });
    await server.acquire('one');
    const driver = server.driver!;
    const connections = driver.poolUsage?.().max ?? 1; // PGlite: one connection
    const held = await Promise.all(Array.from({ length: connections }, () => driver.connect()));
    try {
      expect((await server.raw('/healthz')).status).toBe(200);
      const families = await scrape(server);
      // Left out of this scrape, and counted: the pool was full (PostgreSQL) or the statement waited past its bound (PGlite).
      expect(families.get('leasehold_leases_held')?.metrics ?? []).toEqual([]);
      const reason = server.server.store.kind === 'postgres' ? 'pool_busy' : 'timeout';
      expect(value(families, 'leasehold_metrics_store_reads_skipped_total', { reason })).toBe(1);
      expect(value(families, 'leasehold_http_requests_total', { operation: '/healthz', status: '200' })).toBe(1);
      if (server.server.store.kind === 'postgres') {
        expect(value(families, 'leasehold_db_pool_idle_connections')).toBe(0);
        expect(value(families, 'leasehold_db_pool_connections')).toBe(connections);
      }
      const ready = await server.raw('/readyz');
      expect(ready.status).toBe(503);
      expect(ready.headers.get('retry-after')).toBe('1');
      expect((ready.body as { message: string }).message).toBe('The store is not ready: the database did not answer within 100 ms.');
    } finally {
      for (const connection of held) connection.release();
    }
    // The connections back: ready again, and the gauge is back.
    await expect.poll(async () => (await server.raw('/readyz')).status, { timeout: 10_000, interval: 50 }).toBe(200);
    expect(value(await scrape(server), 'leasehold_leases_held', { kind: 'space' })).toBe(1);
  });
});
