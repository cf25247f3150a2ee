import { ApiError } from '../core/errors/api-error.js';
import type { LeaseholdError } from '../core/errors/leasehold-error.js';
import type { CallOutcome, CallTrace, CallTracer, TracedCall } from '../core/request/call-tracer.js';
import type { LeaseKind } from '../leases/lease-kind.js';
import type { CountedLossReason, SchedulerObserver } from '../leases/scheduler/scheduler-reports.js';
import { METRICS, SCOPE } from './names.js';
import { SPAN_KIND_CLIENT, SPAN_STATUS_ERROR, type OpenTelemetryApi, type OtelAttributes, type OtelCounter, type OtelHistogram, type OtelSpan, type OtelTracer } from './otel-api.js';

/** Counts the live leases by kind, when the gauge is read. */
export type HeldLeases = () => Iterable<{ kind: LeaseKind; status: string }>;

/**
 * The client's OpenTelemetry instrumentation: a CLIENT span per API call (HTTP client semantic
 * conventions, plus the operation, claim id and lease kind) and the metrics of `names.ts`.
 * Built once per client from the API module; every instrument is created up front.
 */
export class ClientTelemetry implements CallTracer, SchedulerObserver {
  readonly #tracer: OtelTracer;
  readonly #requestDuration: OtelHistogram;
  readonly #retries: OtelCounter;
  readonly #renewals: OtelCounter;
  readonly #losses: OtelCounter;
  readonly #heartbeatSize: OtelHistogram;
  readonly #heartbeatDuration: OtelHistogram;

  constructor(api: OpenTelemetryApi, version: string, held: HeldLeases) {
    this.#tracer = api.trace.getTracer(SCOPE, version);
    const meter = api.metrics.getMeter(SCOPE, version);
    this.#requestDuration = meter.createHistogram(METRICS.requestDuration.name, METRICS.requestDuration.options);
    this.#retries = meter.createCounter(METRICS.retries.name, METRICS.retries.options);
    this.#renewals = meter.createCounter(METRICS.renewals.name, METRICS.renewals.options);
    this.#losses = meter.createCounter(METRICS.losses.name, METRICS.losses.options);
    this.#heartbeatSize = meter.createHistogram(METRICS.heartbeatSize.name, METRICS.heartbeatSize.options);
    this.#heartbeatDuration = meter.createHistogram(METRICS.heartbeatDuration.name, METRICS.heartbeatDuration.options);
    meter.createObservableGauge(METRICS.leasesHeld.name, METRICS.leasesHeld.options).addCallback((result) => {
      const counts: Record<LeaseKind, number> = { space: 0, task: 0, spool: 0 };
      for (const lease of held()) if (lease.status === 'held') counts[lease.kind] += 1;
      for (const kind of Object.keys(counts) as LeaseKind[]) result.observe(counts[kind], { 'leasehold.lease.kind': kind });
    });
  }

  start(call: TracedCall): CallTrace {
    const url = new URL(call.url);
    const template = call.operation?.urlTemplate ?? call.path;
    const attributes: OtelAttributes = {
      'http.request.method': call.method,
      'url.full': call.url,
      'url.template': template,
      'server.address': url.hostname,
      'server.port': url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port),
    };
    if (call.operation !== undefined) {
      attributes['leasehold.operation'] = call.operation.operationId;
      if (call.operation.claimId !== undefined) attributes['leasehold.claim_id'] = call.operation.claimId;
      if (call.operation.leaseKind !== undefined) attributes['leasehold.lease.kind'] = call.operation.leaseKind;
    }
    const span = this.#tracer.startSpan(`${call.method} ${template}`, { kind: SPAN_KIND_CLIENT, attributes });
    const started = performance.now();
    const metricAttributes: OtelAttributes = {
      'http.request.method': call.method,
      'url.template': template,
      'server.address': attributes['server.address'],
      'leasehold.operation': call.operation?.operationId,
    };
    return new SpanTrace(span, started, metricAttributes, this.#requestDuration, this.#retries);
  }

  heartbeatSent(leases: number): void {
    this.#heartbeatSize.record(leases);
  }

  heartbeatEnded(durationMs: number, ok: boolean): void {
    this.#heartbeatDuration.record(durationMs / 1000, { 'leasehold.heartbeat.outcome': ok ? 'ok' : 'error' });
  }

  renewed(count: number, via: 'heartbeat' | 'renew'): void {
    this.#renewals.add(count, { 'leasehold.renewal.source': via });
  }

  lost(kind: LeaseKind, reason: CountedLossReason): void {
    this.#losses.add(1, { 'leasehold.lease.kind': kind, 'leasehold.lease.loss_reason': reason });
  }
}

/** The span of one API call in progress. */
class SpanTrace implements CallTrace {
  constructor(
    private readonly span: OtelSpan,
    private readonly started: number,
    private readonly attributes: OtelAttributes,
    private readonly duration: OtelHistogram,
    private readonly retries: OtelCounter,
  ) {}

  retry(attempt: number, delayMs: number, error: LeaseholdError): void {
    this.span.addEvent('leasehold.retry', { 'leasehold.attempt': attempt, 'leasehold.retry.delay_ms': delayMs, 'error.type': errorType(error) });
    this.retries.add(1, { ...this.attributes, 'error.type': errorType(error) });
  }

  end(outcome: CallOutcome): void {
    const { span } = this;
    if (outcome.status !== undefined) span.setAttribute('http.response.status_code', outcome.status);
    if (outcome.attempts > 1) span.setAttribute('http.request.resend_count', outcome.attempts - 1);
    if (outcome.requestId !== undefined) span.setAttribute('leasehold.request_id', outcome.requestId);
    const attributes: OtelAttributes = { ...this.attributes, 'http.response.status_code': outcome.status };
    if (outcome.error !== undefined) {
      const type = errorType(outcome.error);
      span.setAttribute('error.type', type);
      span.setStatus({ code: SPAN_STATUS_ERROR, message: outcome.error.message });
      attributes['error.type'] = type;
    }
    this.duration.record((performance.now() - this.started) / 1000, attributes);
    span.end();
  }
}

/** `error.type`: the status code of an answered error (semantic conventions), else the error's class. */
function errorType(error: LeaseholdError): string {
  return error instanceof ApiError ? String(error.status) : error.name;
}
