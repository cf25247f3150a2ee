import type { FaultInjector } from '../faults.js';
import { HttpError } from '../http-error.js';
import { faultCode } from '../request-parts.js';
import type { Step } from './step.js';

/**
 * Applies this process's armed faults (never to the test controls): a status fault answers
 * without running the operation (after its latency, if any); latency and drops are left on
 * the context for the execute step, which waits before committing and drops after.
 */
export function injectFaults(faults: FaultInjector, sleep: (ms: number) => Promise<void>): Step {
  return (ctx) => {
    const route = ctx.route;
    if (route === undefined || route.isControl || faults.size === 0) return undefined;
    const fault = faults.take({ operationId: route.operationId, method: route.method, path: ctx.target.path ?? '' });
    if (fault === undefined) return undefined;
    if (fault.status === undefined) {
      ctx.fault = fault;
      return undefined;
    }
    const status = fault.status;
    const headers: Record<string, string> = fault.retryAfterSeconds !== undefined ? { 'Retry-After': String(fault.retryAfterSeconds) } : {};
    const injected = () => new HttpError(status, faultCode(status), 'Injected fault.', undefined, undefined, headers);
    if (fault.latencyMs > 0) {
      return sleep(fault.latencyMs).then(() => {
        throw injected();
      });
    }
    throw injected();
  };
}
