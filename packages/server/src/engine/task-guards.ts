import { EngineError } from './errors.js';
import type { LeaseRecord } from './lease-record.js';
import { safeEqual } from './secrets.js';
import { taskEtag, type TaskRecord } from './task-record.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ZERO_UUID = '00000000-0000-0000-0000-000000000000';
const ENTITY_TAG = /^(W\/)?"[\x21\x23-\x7e\x80-\xff]*"$/;

/**
 * Validate a task-claim token: a non-zero UUID. Missing, null, empty, all-zero or malformed is
 * `invalid_token` (400) naming `param` (`token` in bodies, `X-Task-Claim` in headers).
 */
export function validateTaskToken(value: unknown, param: string): string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new EngineError('invalid_token', `${param} is required: the claim's UUID token.`, param);
  }
  if (!UUID.test(value)) throw new EngineError('invalid_token', `${param} must be a UUID.`, param);
  const token = value.toLowerCase();
  if (token === ZERO_UUID) throw new EngineError('invalid_token', `${param} must be a non-zero UUID.`, param);
  return token;
}

/**
 * Check `If-Match` against the task's ETag: missing is `if_match_required` (428), unparsable is
 * `invalid_if_match` (400), anything but the current ETag (strong comparison; `*` and weak tags
 * never match) is `etag_mismatch` (412).
 */
export function checkIfMatch(task: Pick<TaskRecord, 'id' | 'version'>, ifMatch: string | null | undefined): void {
  if (ifMatch === undefined || ifMatch === null || ifMatch.trim() === '') {
    throw new EngineError('if_match_required', "Send the task's current ETag in If-Match.", 'If-Match');
  }
  const tags = ifMatch.split(',').map((tag) => tag.trim());
  if (!tags.every((tag) => tag === '*' || ENTITY_TAG.test(tag))) {
    throw new EngineError('invalid_if_match', 'If-Match must be a quoted entity tag such as "task-42-v7".', 'If-Match');
  }
  const current = taskEtag(task);
  if (!tags.includes(current)) {
    throw new EngineError('etag_mismatch', 'The task changed since you read it; read it again for its current ETag.', 'If-Match');
  }
}

/**
 * Find which of the task's claims a (validated) token names. The live claim answers itself;
 * an expired one is `lease_expired`; a released, unknown or wrong one is `claim_not_held`.
 */
export function matchTaskClaim(task: TaskRecord, token: string, param: string): LeaseRecord {
  if (task.claim !== null && safeEqual(token, task.claim.token)) return task.claim;
  const past = task.pastClaims.find((lease) => safeEqual(token, lease.token));
  if (past !== undefined && past.status === 'lost') {
    throw new EngineError('lease_expired', 'The task claim expired; read the task and claim it again.', param);
  }
  throw new EngineError('claim_not_held', 'This token does not hold the task claim.', param);
}

/**
 * Guard a protected write (notes, PATCH, complete): a claimed task needs its live token
 * (`claim_required` when absent); a token for an unclaimed task is `claim_not_held`.
 * Answers the live claim, or `null` for an unclaimed task.
 */
export function guardProtectedWrite(task: TaskRecord, claimToken: string | undefined): LeaseRecord | null {
  if (task.claim === null) {
    if (claimToken !== undefined) matchTaskClaim(task, claimToken, 'X-Task-Claim');
    return null;
  }
  if (claimToken === undefined) {
    throw new EngineError('claim_required', 'The task is claimed: send the live claim token in X-Task-Claim.', 'X-Task-Claim');
  }
  return matchTaskClaim(task, claimToken, 'X-Task-Claim');
}
