import type { OtelInstrumentOptions } from './otel-api.js';

/** The instrumentation scope of the client's spans and metrics. */
export const SCOPE = '@leasehold/client';

/** Every metric the client records: the names the README's *Observability* section lists. */
export const METRICS = {
  /** Per API call (HTTP client semantic conventions): duration of the whole call, retries included. */
  requestDuration: { name: 'http.client.request.duration', options: { unit: 's', description: 'Duration of Leasehold API calls, retries included.' } },
  /** Per retry of an API call. */
  retries: { name: 'leasehold.client.request.retries', options: { unit: '{retry}', description: 'Retries of Leasehold API calls.' } },
  /** Live held leases by `leasehold.lease.kind` (observed when collected). */
  leasesHeld: { name: 'leasehold.client.leases.held', options: { unit: '{lease}', description: 'Leases the client holds, by kind.' } },
  /** Lease renewals by `leasehold.renewal.source` (`heartbeat` or `renew`). */
  renewals: { name: 'leasehold.client.lease.renewals', options: { unit: '{renewal}', description: 'Lease renewals, by source.' } },
  /** Lost leases by `leasehold.lease.kind` and `leasehold.lease.loss_reason`. */
  losses: { name: 'leasehold.client.lease.losses', options: { unit: '{lease}', description: 'Leases lost, by kind and reason.' } },
  /** Claim ids named by each batch heartbeat. */
  heartbeatSize: { name: 'leasehold.client.heartbeat.size', options: { unit: '{lease}', description: 'Leases named by one batch heartbeat.' } },
  /** Send-to-answer time of each batch heartbeat, by `leasehold.heartbeat.outcome` (`ok` or `error`). */
  heartbeatDuration: { name: 'leasehold.client.heartbeat.duration', options: { unit: 's', description: 'Round trip of one batch heartbeat.' } },
} as const satisfies Record<string, { name: string; options: OtelInstrumentOptions }>;
