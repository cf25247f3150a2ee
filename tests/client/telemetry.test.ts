// The client's OpenTelemetry instrumentation, seen through the SDK's in-memory exporters: a
// CLIENT span per API call (HTTP client semantic conventions + operation, claim id, lease kind)
// and the metrics the README lists. Telemetry is on when @opentelemetry/api is installed (found
// on its own here), passed as `telemetry: { api }`, and off with `telemetry: false`.
import { metrics, trace } from '@opentelemetry/api';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, uuid, type Harness } from './harness.js';

const spans = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
const reader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 3_600_000 });
const meterProvider = new MeterProvider({ readers: [reader] });

/** The sum of the metric `name`'s points whose attributes include `attributes` (cumulative, so compare before and after). */
async function total(name: string, attributes: Record<string, unknown> = {}): Promise<number> {
  let sum = 0;
  for (const point of await points(name)) {
    if (Object.entries(attributes).every(([key, value]) => point.attributes[key] === value)) sum += typeof point.value === 'number' ? point.value : 0;
  }
  return sum;
}

/** Every data point of the metric `name`, as `{ attributes, value }`. */
async function points(name: string): Promise<Array<{ attributes: Record<string, unknown>; value: unknown }>> {
  const { resourceMetrics } = await reader.collect();
  const found = resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics).filter((metric) => metric.descriptor.name === name);
  return found.flatMap((metric) => metric.dataPoints.map((point) => ({ attributes: point.attributes, value: point.value })));
}

let h: Harness;
beforeAll(() => {
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
});
afterAll(async () => {
  trace.disable();
  metrics.disable();
  await Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]);
});
beforeEach(async () => {
  h = await startHarness('fetch');
  spans.reset();
});
afterEach(() => h.close());

describe('OpenTelemetry', () => {
  it('a span per API call, with the HTTP client attributes, the operation, the claim id and the lease kind', async () => {
    const lh = h.client();
    const lease = await lh.space(uuid()).run(uuid(), { holder: 'otel' }).claim('reports/2026-11').acquire();
    await lease.renew();
    await lease.release();
    const names = spans.getFinishedSpans().map((span) => span.name);
    expect(names).toEqual([
      'POST /v1/spaces/{spaceId}/claims',
      'POST /v1/spaces/{spaceId}/claims/{key}/renew',
      'POST /v1/spaces/{spaceId}/claims/{key}/release',
    ]);
    const renew = spans.getFinishedSpans()[1]!;
    expect(renew.kind).toBe(2); // SpanKind.CLIENT
    expect(renew.instrumentationScope.name).toBe('@leasehold/client');
    expect(renew.attributes).toMatchObject({
      'http.request.method': 'POST',
      'url.template': '/v1/spaces/{spaceId}/claims/{key}/renew',
      'server.address': 'leasehold.test',
      'server.port': 80,
      'http.response.status_code': 200,
      'leasehold.operation': 'renewSpaceClaim',
      'leasehold.claim_id': lease.claimId,
      'leasehold.lease.kind': 'space',
    });
    expect(String(renew.attributes['url.full'])).toMatch(/^http:\/\/leasehold\.test\/v1\/spaces\/[^/]+\/claims\/reports%2F2026-11\/renew$/);
  });

  it('a failed call: error.type, an error status, a retry event per retry, and the retries counter', async () => {
    const lh = h.client();
    h.server.control.injectFault({ operationId: 'createTask', status: 503, times: 1 });
    await lh.tasks.create({ title: 'retried once' });
    await expect(lh.tasks.get(987_654)).rejects.toMatchObject({ status: 404 });
    const [create, get] = spans.getFinishedSpans();
    expect(create?.attributes).toMatchObject({ 'http.response.status_code': 201, 'http.request.resend_count': 1 });
    expect(create?.events.map((event) => event.name)).toEqual(['leasehold.retry']);
    expect(get?.attributes).toMatchObject({ 'http.response.status_code': 404, 'error.type': '404' });
    expect(get?.status.code).toBe(2); // SpanStatusCode.ERROR
    expect(await total('leasehold.client.request.retries', { 'leasehold.operation': 'createTask', 'error.type': '503' })).toBe(1);
    const durations = await points('http.client.request.duration');
    expect(durations.some((point) => point.attributes['leasehold.operation'] === 'getTask' && point.attributes['error.type'] === '404')).toBe(true);
  });

  it('metrics: leases held by kind, renewals, losses by reason', async () => {
    const lh = h.client({ telemetry: { api: { trace, metrics } } });
    const losses = await total('leasehold.client.lease.losses', { 'leasehold.lease.kind': 'space', 'leasehold.lease.loss_reason': 'lost' });
    const renews = await total('leasehold.client.lease.renewals', { 'leasehold.renewal.source': 'renew' });
    const raw = await total('leasehold.client.lease.renewals', { 'leasehold.renewal.source': 'heartbeat' });
    const run = lh.space(uuid()).run(uuid(), { holder: 'otel' });
    const kept = await run.claim('kept').acquire();
    const doomed = await run.claim('doomed').acquire();
    h.server.control.loseLease(doomed.claimId);
    await lh.heartbeat({ ttl: 30 }); // the raw heartbeat renews `kept` and reports `doomed` lost
    await kept.renew();
    expect(doomed.status).toBe('lost');
    expect(await total('leasehold.client.leases.held', { 'leasehold.lease.kind': 'space' })).toBe(1);
    expect(await total('leasehold.client.leases.held', { 'leasehold.lease.kind': 'task' })).toBe(0);
    expect(await total('leasehold.client.lease.losses', { 'leasehold.lease.kind': 'space', 'leasehold.lease.loss_reason': 'lost' })).toBe(losses + 1);
    expect(await total('leasehold.client.lease.renewals', { 'leasehold.renewal.source': 'renew' })).toBe(renews + 1);
    expect(await total('leasehold.client.lease.renewals', { 'leasehold.renewal.source': 'heartbeat' })).toBe(raw + 1);
    await kept.release();
    expect(await total('leasehold.client.leases.held', { 'leasehold.lease.kind': 'space' })).toBe(0);
  });

  it('the scheduler’s own heartbeats record their size and latency', async () => {
    const lh = h.client({ heartbeatTtlSeconds: 5, renewal: { jitter: 0 } });
    const run = lh.space(uuid()).run(uuid(), { holder: 'otel' });
    await Promise.all([run.claim('a').acquire(), run.claim('b').acquire()]);
    await expect.poll(async () => (await points('leasehold.client.heartbeat.size')).length, { timeout: 10_000 }).toBeGreaterThan(0);
    const [size] = await points('leasehold.client.heartbeat.size');
    expect(size?.value).toMatchObject({ count: 1, sum: 2 });
    const [latency] = await points('leasehold.client.heartbeat.duration');
    expect(latency?.attributes).toEqual({ 'leasehold.heartbeat.outcome': 'ok' });
    expect(await total('leasehold.client.lease.renewals', { 'leasehold.renewal.source': 'heartbeat' })).toBeGreaterThanOrEqual(2);
  });

  it('telemetry: false records nothing', async () => {
    const lh = h.client({ telemetry: false });
    await lh.tasks.create({ title: 'untraced' });
    expect(spans.getFinishedSpans()).toEqual([]);
  });
});
