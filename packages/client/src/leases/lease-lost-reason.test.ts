import { describe, expect, it } from 'vitest';
import { ApiError, ConflictError, GoneError, LeaseLostError } from '../core/errors/index.js';
import { leaseLostReasonOf, toLeaseLostError } from './lease-lost-reason.js';
import { apiError } from './test-kit.js';

const makeApiError = ApiError.from;

describe('leaseLostReasonOf', () => {
  const table: Array<{ given: unknown; want: ReturnType<typeof leaseLostReasonOf> }> = [
    { given: apiError(409, 'scope_cancelled'), want: 'cancelled' },
    { given: apiError(409, 'claim_not_held'), want: 'lost' },
    { given: apiError(409, 'claim_held'), want: 'lost' },
    { given: apiError(409), want: 'lost' },
    { given: apiError(409, 'lease_expired'), want: 'expired' },
    { given: apiError(410, 'stale_token'), want: 'stale' },
    { given: apiError(410), want: 'stale' },
    { given: apiError(409, 'claim_queued'), want: undefined },
    { given: apiError(409, 'idempotency_in_flight'), want: undefined },
    { given: apiError(409, 'idempotency_key_reused'), want: undefined },
    { given: apiError(503), want: undefined },
    { given: apiError(429, 'rate_limited'), want: undefined },
    { given: apiError(401), want: undefined },
    { given: new TypeError('fetch failed'), want: undefined },
    { given: undefined, want: undefined },
    { given: new LeaseLostError('deadline', 'clm_x'), want: 'deadline' },
  ];
  it.each(table)('$given.message → $want', ({ given, want }) => {
    expect(leaseLostReasonOf(given)).toBe(want);
  });

  it('reads the SDK error classes', () => {
    const conflict = makeApiError({ status: 409, type: 'conflict_error', code: 'scope_cancelled', message: 'cancelled' });
    const gone = makeApiError({ status: 410, type: 'gone_error', code: 'stale_token', message: 'stale' });
    expect(conflict).toBeInstanceOf(ConflictError);
    expect(gone).toBeInstanceOf(GoneError);
    expect(leaseLostReasonOf(conflict)).toBe('cancelled');
    expect(leaseLostReasonOf(gone)).toBe('stale');
  });
});

describe('toLeaseLostError', () => {
  it('wraps the cause and names the claim', () => {
    const cause = apiError(410, 'stale_token');
    const error = toLeaseLostError(cause, 'clm_1');
    expect(error).toBeInstanceOf(LeaseLostError);
    expect(error).toMatchObject({ reason: 'stale', claimId: 'clm_1', cause });
  });

  it('returns undefined for errors that say nothing about the lease', () => {
    expect(toLeaseLostError(apiError(500), 'clm_1')).toBeUndefined();
  });
});
