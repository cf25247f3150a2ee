import type { ObservedResponse } from '../../support/response-contract.js';
import { ERROR_TYPE_BY_STATUS } from '../../support/leasehold-harness.js';
import { schemaErrors } from '../../support/spec-validator.js';

/**
 * One schema object for the envelope, so the spec validator compiles it once: its cache is keyed
 * by the schema object, and `envelopeProblems` in `tests/support` passes a fresh literal per call
 * (a full ajv compile per answer: fine for a few hundred answers, minutes for ten thousand).
 */
const ENVELOPE = { $ref: '#/components/schemas/ErrorEnvelope' };

/** The envelope `type` per status, with 405 (which the spec's operations never declare). */
export function envelopeTypeFor(status: number): string | undefined {
  return ERROR_TYPE_BY_STATUS[status] ?? (status === 405 ? 'invalid_request_error' : undefined);
}

/** Same checks as `envelopeProblems` of `tests/support/leasehold-harness.ts`: schema, Request-Id = request_id, Date, type. */
export function envelopeProblems(observed: ObservedResponse, typeForStatus = envelopeTypeFor(observed.status)): string[] {
  const problems = schemaErrors(ENVELOPE, observed.body).map((e) => `body ${e}`);
  const requestId = observed.headers.get('request-id');
  if (!requestId) problems.push('missing Request-Id header');
  if (!observed.headers.get('date')) problems.push('missing Date header');
  const envelope = observed.body as { request_id?: string; type?: string } | undefined;
  if (envelope?.request_id !== requestId) problems.push('request_id differs from the Request-Id header');
  if (typeForStatus !== undefined && envelope?.type !== typeForStatus) problems.push(`type ${envelope?.type} for ${observed.status}`);
  return problems;
}
