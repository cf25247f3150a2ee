import { describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../errors.js';
import { asUnavailable, isReadOnlyRefusal } from './failures.js';

/** Errors shaped like the ones node-postgres raises while a primary fails over. */
const failoverErrors: Record<string, unknown> = {
  'admin_shutdown (57P01, the primary stopped)': Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
  'read_only_sql_transaction (25006, a demoted node)': Object.assign(new Error('cannot execute UPDATE in a read-only transaction'), { code: '25006' }),
  'connection_failure (08006)': Object.assign(new Error('connection failure'), { code: '08006' }),
  'connection terminated by HAProxy': new Error('Connection terminated unexpectedly'),
  'connection refused while no primary is up': Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
};

describe('failover errors are outages', () => {
  for (const [name, error] of Object.entries(failoverErrors)) {
    it(`${name} answers 503 with Retry-After`, () => {
      const outage = asUnavailable(error);
      expect(outage).toBeInstanceOf(StoreUnavailableError);
      expect(outage?.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      expect(outage?.cause).toBe(error);
    });
  }

  it('says the node is read-only, and only for 25006', () => {
    expect(asUnavailable(failoverErrors['read_only_sql_transaction (25006, a demoted node)'])?.message).toMatch(/read-only/);
    expect(isReadOnlyRefusal(failoverErrors['read_only_sql_transaction (25006, a demoted node)'])).toBe(true);
    expect(isReadOnlyRefusal(failoverErrors['admin_shutdown (57P01, the primary stopped)'])).toBe(false);
  });

  it('leaves request bugs (unique violation, syntax error, plain errors) as 500s', () => {
    expect(asUnavailable(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBeUndefined();
    expect(asUnavailable(Object.assign(new Error('syntax error'), { code: '42601' }))).toBeUndefined();
    expect(asUnavailable(new Error('boom'))).toBeUndefined();
    expect(asUnavailable('not an error')).toBeUndefined();
  });
});
