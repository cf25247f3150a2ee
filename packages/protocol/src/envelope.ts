import { errorTypeOf, type ErrorCode } from './error-codes.js';
import type { components } from './generated/openapi.js';

/** The error body every 4xx/5xx answer carries (the spec's `ErrorEnvelope`). */
export type ErrorEnvelope = components['schemas']['ErrorEnvelope'];

/** One problem inside an error envelope. */
export interface ErrorDetail {
  code?: string;
  message: string;
  param?: string;
}

/** What an error answer says, before it knows which request it answers. */
export interface ErrorFields {
  status: number;
  /** The machine-readable reason; absent only for a blocked key (and injected faults without one). */
  code?: ErrorCode | undefined;
  message: string;
  param?: string | undefined;
  /** Every problem found; sent only when there is more than one. */
  errors?: readonly ErrorDetail[] | undefined;
}

/** Where an error answer goes: its request id and the API reference its `doc_url` opens. */
export interface EnvelopeContext {
  requestId: string;
  /** The API reference (`http://host:4010/docs`); `doc_url` is omitted without it. */
  docsUrl?: string | undefined;
}

/** The anchor of a code's entry in the API reference's *Error codes* catalogue (`scripts/gen.mjs` renders it). */
export function errorDocAnchor(code: string): string {
  return `section/${code}`;
}

/**
 * The one builder of error bodies, used by the reference server, its adapters and the MSW
 * helpers: the canonical members (`type, code, param, message, doc_url, request_id`, and
 * `errors` when there is more than one problem), `kind` (= `code`, the spool page's name) and
 * `error: { code, message, requestId }` (the space-claims page's shape).
 * @example
 * errorEnvelope({ status: 409, code: 'claim_held', message: 'Held.', param: 'key' }, { requestId, docsUrl: 'http://127.0.0.1:4010/docs' });
 */
export function errorEnvelope(fields: ErrorFields, context: EnvelopeContext): ErrorEnvelope {
  const { code, param, message, errors } = fields;
  const envelope = { type: errorTypeOf(fields.status) } as ErrorEnvelope;
  if (code !== undefined) envelope.code = code;
  if (param !== undefined) envelope.param = param;
  envelope.message = message;
  if (code !== undefined && context.docsUrl !== undefined) envelope.doc_url = `${context.docsUrl}#${errorDocAnchor(code)}`;
  envelope.request_id = context.requestId;
  if (errors !== undefined && errors.length > 1) envelope.errors = errors.map((detail) => ({ ...detail }));
  if (code !== undefined) envelope.kind = code;
  envelope.error = code === undefined ? { message, requestId: context.requestId } : { code, message, requestId: context.requestId };
  return envelope;
}
