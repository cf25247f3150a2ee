import { describe, expect, it } from 'vitest';
import { EngineError, errorStatusByCode, errorTypeByStatus, isEngineError, type ErrorCode } from './errors.js';

describe('errorStatusByCode', () => {
  const table: Array<[ErrorCode, number]> = [
    ['invalid_ttl', 400],
    ['invalid_token', 400],
    ['missing_api_key', 401],
    ['account_suspended', 402],
    ['permission_denied', 403],
    ['plan_limit_exceeded', 403],
    ['claim_not_found', 404],
    ['claim_held', 409],
    ['lease_expired', 409],
    ['idempotency_in_flight', 409],
    ['stale_token', 410],
    ['etag_mismatch', 412],
    ['invalid_transition', 422],
    ['if_match_required', 428],
    ['rate_limited', 429],
    ['internal_error', 500],
    ['service_unavailable', 503],
  ];
  it.each(table)('%s → %i', (code, status) => {
    expect(errorStatusByCode[code]).toBe(status);
    expect(new EngineError(code, 'm').status).toBe(status);
  });

  it('gives every status an envelope type', () => {
    for (const status of Object.values(errorStatusByCode)) expect(errorTypeByStatus[status]).toBeTypeOf('string');
  });

  it('lists every code of the ErrorEnvelope schema', () => {
    const documented =
      'invalid_json json_too_deep invalid_request invalid_token invalid_ttl invalid_idempotency_key invalid_if_match body_too_large unsupported_media_type invalid_transition missing_api_key invalid_api_key expired_api_key account_suspended permission_denied plan_limit_exceeded route_not_found space_not_found claim_not_found task_not_found spool_not_found queue_not_found message_not_found claim_held claim_queued claim_not_held lease_expired scope_cancelled task_claimed task_completed claim_required spool_exists idempotency_key_reused idempotency_in_flight stale_token etag_mismatch if_match_required rate_limited internal_error service_unavailable';
    expect(Object.keys(errorStatusByCode).sort()).toEqual(documented.split(' ').sort());
  });
});

describe('EngineError', () => {
  it('carries code, message and param', () => {
    const error = new EngineError('claim_held', 'held', 'key');
    expect(error).toBeInstanceOf(Error);
    expect([error.code, error.message, error.param]).toEqual(['claim_held', 'held', 'key']);
    expect(isEngineError(error)).toBe(true);
    expect(isEngineError(error, 'claim_held')).toBe(true);
    expect(isEngineError(error, 'stale_token')).toBe(false);
    expect(isEngineError(new Error('x'))).toBe(false);
  });
});
