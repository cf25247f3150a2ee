import { describe, expect, it } from 'vitest';
import { createLeaseholdMockServer } from './mock-server.js';
import { nearestOperationIds } from './operation-id.js';
import { LeaseholdScenario } from './scenario.js';

describe('scenario levers refuse an unknown operation at once', () => {
  const scenario = new LeaseholdScenario(createLeaseholdMockServer());

  it('failNext names the nearest valid operationIds and arms nothing', () => {
    expect(() => scenario.failNext('acquireClaim' as never)).toThrow(/^failNext: unknown operation 'acquireClaim' — did you mean 'acquireSpaceClaim'/);
    expect(() => scenario.failNext('acquireClaim' as never)).toThrow(/the operationIds of the Leasehold API: .*heartbeatClaims/);
    expect(scenario.server.control.faults()).toEqual([]);
  });

  it('so do addLatency and dropNextResponse, in the object form too', () => {
    expect(() => scenario.addLatency('heartbeatClaim' as never, '1s')).toThrow(/^addLatency: unknown operation 'heartbeatClaim' — did you mean 'heartbeatClaims'/);
    expect(() => scenario.dropNextResponse({ operationId: 'ackMesage' as never })).toThrow(/^dropNextResponse: unknown operation 'ackMesage' — did you mean 'ackMessage'/);
    expect(scenario.server.control.faults()).toEqual([]);
  });

  it('refuses a /_control operation, which faults never hit', () => {
    expect(() => scenario.failNext('advanceControlClock' as never)).toThrow(/is a \/_control operation, which faults never hit/);
  });

  it('takes every real operationId, and method/path targets', () => {
    expect(scenario.failNext('acquireSpaceClaim').rule.operationId).toBe('acquireSpaceClaim');
    expect(scenario.failNext({ method: 'POST', pathPrefix: '/v1/spools/' }).rule.method).toBe('POST');
    scenario.reset();
  });

  it('suggests nothing far off', () => {
    expect(nearestOperationIds('zzzzzzzzzzzzzzzzzzzz')).toEqual([]);
  });
});
