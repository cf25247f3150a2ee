import { ERROR_TYPE_BY_STATUS } from '../../support/leasehold-harness.js';

/** The checks every error answer must pass: schema, `Request-Id` = `request_id`, `Date`, `type`. */
export { envelopeProblems } from '../../support/leasehold-harness.js';

/** The envelope `type` a status must carry. */
export function envelopeTypeFor(status: number): string | undefined {
  return ERROR_TYPE_BY_STATUS[status];
}
