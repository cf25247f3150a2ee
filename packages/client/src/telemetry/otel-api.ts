/**
 * The part of `@opentelemetry/api` (1.x) the client uses, declared structurally: the published
 * typings then need no OpenTelemetry package, and any 1.x copy of the API module fits.
 */

/** Attribute values as the OpenTelemetry API takes them. */
export type OtelAttributes = Record<string, string | number | boolean | undefined>;

/** A span, as far as the client uses one. */
export interface OtelSpan {
  setAttribute(key: string, value: string | number | boolean): unknown;
  addEvent(name: string, attributes?: OtelAttributes): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  end(): void;
}

/** A tracer, as far as the client uses one. */
export interface OtelTracer {
  startSpan(name: string, options?: { kind?: number; attributes?: OtelAttributes }): OtelSpan;
}

/** A counter or up-down counter. */
export interface OtelCounter {
  add(value: number, attributes?: OtelAttributes): void;
}

/** A histogram. */
export interface OtelHistogram {
  record(value: number, attributes?: OtelAttributes): void;
}

/** What an observable instrument's callback reports to. */
export interface OtelObservableResult {
  observe(value: number, attributes?: OtelAttributes): void;
}

/** An observable gauge. */
export interface OtelObservableGauge {
  addCallback(callback: (result: OtelObservableResult) => void): void;
  removeCallback(callback: (result: OtelObservableResult) => void): void;
}

/** Options of an instrument. */
export interface OtelInstrumentOptions {
  description?: string;
  unit?: string;
  advice?: { explicitBucketBoundaries?: number[] };
}

/** A meter, as far as the client uses one. */
export interface OtelMeter {
  createCounter(name: string, options?: OtelInstrumentOptions): OtelCounter;
  createHistogram(name: string, options?: OtelInstrumentOptions): OtelHistogram;
  createObservableGauge(name: string, options?: OtelInstrumentOptions): OtelObservableGauge;
}

/** The `@opentelemetry/api` module (its `trace` and `metrics` entry points). */
export interface OpenTelemetryApi {
  trace: { getTracer(name: string, version?: string): OtelTracer };
  metrics: { getMeter(name: string, version?: string): OtelMeter };
}

/** `SpanKind.CLIENT` and `SpanStatusCode.ERROR` of the API (stable numbers). */
export const SPAN_KIND_CLIENT = 2;
export const SPAN_STATUS_ERROR = 2;
