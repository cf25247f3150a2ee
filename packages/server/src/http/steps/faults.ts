import type { FaultAction, Faults } from '../faults.js';
import { HttpError } from '../http-error.js';
import { faultCode } from '../request-parts.js';
import type { Step } from './step.js';

/**
 * Applies the armed faults — this process's on the memory store, the deployment's on SQL —
 * (never to the test controls): a status fault answers without running the operation (after its latency, if any); latency and drops are left on
 * the context for the execute step, which waits before committing and drops after.
 */
export function injectFaults(faults: Faults, sleep: (ms: number) => Promise<void>): Step {
  const apply = (ctx: Parameters<Step>[0], fault: FaultAction | undefined) => {
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
  return (ctx) => {
    const route = ctx.route;
    if (route === undefined || route.isControl || faults.idle) return undefined;
    const fault = faults.take({ operationId: route.operationId, method: route.method, path: ctx.target.path ?? '' });
    return fault instanceof Promise ? fault.then((settled) => apply(ctx, settled)) : apply(ctx, fault);
  };
}
