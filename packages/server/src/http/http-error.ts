import type { ErrorCode } from '../engine/index.js';
import type { ErrorDetail, ErrorFields } from '@leasehold/protocol';

export type { ErrorDetail } from '@leasehold/protocol';

/** An error a handler throws to answer with the canonical envelope. */
export class HttpError extends Error {
  /** Creates an error answered with `status`, an optional `code` and `param`. */
  constructor(
    readonly status: number,
    readonly code: ErrorCode | undefined,
    message: string,
    readonly param?: string,
    readonly errors?: ErrorDetail[],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }

  /** What the envelope says (the pipeline adds the request id and `doc_url`). */
  fields(): ErrorFields {
    return { status: this.status, code: this.code, message: this.message, param: this.param, errors: this.errors };
  }
}
