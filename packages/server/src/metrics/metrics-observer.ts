import { leaseGrants, type OperationId } from '@leasehold/protocol';
import type { StoredAnswer } from '../http/answer.js';
import type { RequestContext } from '../http/context.js';
import type { RequestObserver } from '../http/observer.js';
import type { ServerMetrics } from './server-metrics.js';

/** How many times `needle` occurs in `text`. */
function occurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) count++;
  return count;
}

/**
 * The pipeline observer that feeds `ServerMetrics`: every answer by operation and status with
 * its latency, grants (a granting operation's grant status), expirations and losses as their
 * holders are told (error codes; a heartbeat's `lost` entries), heartbeat sizes and replays.
 * The operation label is the operationId, a static route's path (`/healthz`), or `unrouted`.
 */
export function metricsObserver(metrics: ServerMetrics): RequestObserver {
  return {
    answered(ctx: RequestContext, answer: StoredAnswer, durationMs: number): void {
      const route = ctx.route;
      const operation =
        route !== undefined ? route.operationId
        : answer.status === 404 || answer.status === 405 ? 'unrouted'
        : (ctx.target.path ?? 'unrouted');
      metrics.requests.inc({ operation, status: answer.status === 0 ? 'dropped' : String(answer.status) });
      metrics.requestDuration.observe({ operation }, durationMs / 1000);
      if (route === undefined) return;
      const code = answer.error?.code;
      if (code !== undefined) {
        if (code === 'lease_expired') metrics.expirations.inc({ operation });
        else if (code === 'stale_token' || code === 'claim_not_held') metrics.losses.inc({ operation });
        return;
      }
      const grant = leaseGrants[operation as OperationId];
      if (grant !== undefined && answer.status === grant.status) metrics.grants.inc({ kind: grant.kind });
      if (answer.headers['Idempotent-Replayed'] === 'true') metrics.replays.inc({ operation });
      if (operation === 'heartbeatClaims' && answer.status === 200 && answer.body !== undefined) {
        metrics.heartbeatSize.observe(occurrences(answer.body, '"claimId":'));
        const lost = occurrences(answer.body, '"status":"lost"');
        if (lost > 0) metrics.losses.inc({ operation }, lost);
      }
    },
  };
}
