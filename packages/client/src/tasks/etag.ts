import { UnexpectedResponseError } from '../core/errors/unexpected-response-error.js';
import type { LeaseholdResponse } from '../core/request/request-options.js';

/** The `ETag` of a task answer (every task answer carries one; one without is an `UnexpectedResponseError`). */
export function etagOf(response: LeaseholdResponse<unknown>): string {
  const etag = response.headers.etag;
  if (etag === undefined || etag === '') {
    throw new UnexpectedResponseError({
      status: response.status,
      code: 'unexpected_response_shape',
      message: 'The task answer carries no ETag.',
      requestId: response.requestId,
      headers: response.headers,
    });
  }
  return etag;
}
