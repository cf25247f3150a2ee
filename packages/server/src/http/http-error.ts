import { errorTypeByStatus } from '../engine/index.js';

/** One problem inside an error envelope. */
export interface ErrorDetail {
  code?: string;
  message: string;
  param?: string;
}

/** An error a handler throws to answer with the canonical envelope. */
export class HttpError extends Error {
  /** Creates an error answered with `status`, an optional `code` and `param`. */
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    message: string,
    readonly param?: string,
    readonly errors?: ErrorDetail[],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/** Builds the canonical envelope body for an error. */
export function envelopeOf(error: HttpError, requestId: string): Record<string, unknown> {
  const body: Record<string, unknown> = {
    type: errorTypeByStatus[error.status] ?? (error.status >= 500 ? 'api_error' : 'invalid_request_error'),
  };
  if (error.code !== undefined) body.code = error.code;
  if (error.param !== undefined) body.param = error.param;
  body.message = error.message;
  if (error.code !== undefined) body.doc_url = `https://docs.leasehold.example/errors#${error.code}`;
  body.request_id = requestId;
  if (error.errors && error.errors.length > 0) body.errors = error.errors;
  return body;
}
