import { describe, expect, it } from 'vitest';
import { openapiDocument } from '../generated/openapi-document.js';
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

  it("lists exactly the spec's ErrorCode enum, each with the status its catalogue entry gives", () => {
    const schema = (openapiDocument.components as { schemas: Record<string, { enum: string[]; 'x-error-catalogue': Record<string, { status: number }> }> })
      .schemas.ErrorCode!;
    expect(Object.keys(errorStatusByCode)).toEqual(schema.enum);
    for (const code of schema.enum) expect(errorStatusByCode[code as ErrorCode], code).toBe(schema['x-error-catalogue'][code]!.status);
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
