/** Every machine-readable error code of the Leasehold API, mapped to its HTTP status. */
export const errorStatusByCode = {
  invalid_json: 400,
  json_too_deep: 400,
  invalid_request: 400,
  invalid_token: 400,
  invalid_ttl: 400,
  invalid_idempotency_key: 400,
  invalid_if_match: 400,
  body_too_large: 413,
  unsupported_media_type: 415,
  invalid_transition: 422,
  if_match_required: 428,
  missing_api_key: 401,
  invalid_api_key: 401,
  expired_api_key: 401,
  account_suspended: 402,
  permission_denied: 403,
  plan_limit_exceeded: 403,
  route_not_found: 404,
  space_not_found: 404,
  claim_not_found: 404,
  task_not_found: 404,
  spool_not_found: 404,
  queue_not_found: 404,
  message_not_found: 404,
  claim_held: 409,
  claim_queued: 409,
  claim_not_held: 409,
  lease_expired: 409,
  scope_cancelled: 409,
  task_claimed: 409,
  task_completed: 409,
  claim_required: 409,
  spool_exists: 409,
  idempotency_key_reused: 409,
  idempotency_in_flight: 409,
  stale_token: 410,
  etag_mismatch: 412,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
} as const satisfies Record<string, number>;

/** A machine-readable error code (the envelope's `code`). */
export type ErrorCode = keyof typeof errorStatusByCode;

/** The envelope `type` of an error, by HTTP status (`invalid_request_error` covers 400/405/413/415/422/428). */
export const errorTypeByStatus: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'payment_required_error',
  403: 'permission_error',
  404: 'not_found_error',
  405: 'invalid_request_error',
  409: 'conflict_error',
  410: 'gone_error',
  412: 'precondition_error',
  413: 'invalid_request_error',
  415: 'invalid_request_error',
  422: 'invalid_request_error',
  428: 'invalid_request_error',
  429: 'rate_limit_error',
  500: 'api_error',
  503: 'unavailable_error',
};

/**
 * The one error the engine throws: a code from the envelope's list, a message that never
 * carries a secret, and the offending parameter when there is one.
 * @example
 * throw new EngineError('claim_held', 'The key is held by another claimant.', 'key');
 */
export class EngineError extends Error {
  /** The machine-readable reason. */
  readonly code: ErrorCode;
  /** The body field, header or path parameter the error is about, if any. */
  readonly param: string | undefined;

  /** Create an error with `code`, a secret-free `message` and an optional `param`. */
  constructor(code: ErrorCode, message: string, param?: string) {
    super(message);
    this.name = 'EngineError';
    this.code = code;
    this.param = param;
  }

  /** The HTTP status this error answers with. */
  get status(): number {
    return errorStatusByCode[this.code];
  }
}

/** True when `value` is an `EngineError` (optionally with the given code). */
export function isEngineError(value: unknown, code?: ErrorCode): value is EngineError {
  return value instanceof EngineError && (code === undefined || value.code === code);
}
