declare module 'parse-prometheus-text-format' {
  /** One metric family as the parser answers it (histograms carry `buckets`, `count` and `sum`). */
  export interface MetricFamily {
    name: string;
    help: string;
    type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
    metrics: Array<{
      labels?: Record<string, string>;
      value?: string;
      buckets?: Record<string, string>;
      count?: string;
      sum?: string;
    }>;
  }
  /** Parses the Prometheus text exposition format; throws on malformed input. */
  export default function parsePrometheusTextFormat(text: string): MetricFamily[];
}
