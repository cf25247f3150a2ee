import { errorTypeOf as errorTypeForStatus } from '@leasehold/protocol';
import { ApiError, type ApiErrorDetail, type ApiErrorInit, type ErrorType } from './api-error.js';
import type { Redactor } from '../redact.js';
import { parseRetryAfter } from '../retry/retry-after.js';

/** An HTTP error answer as received: status, lowercase headers, body text. */
export interface ErrorResponse {
  status: number;
  headers: Readonly<Record<string, string>>;
  bodyText: string;
  /** Defaults to the `content-type` header. */
  contentType?: string | undefined;
}

/** Options of `decodeApiError`. */
export interface DecodeErrorOptions {
  /** Masks registered secrets (the API key, learned tokens) in everything the error shows. */
  redactor?: Redactor | undefined;
  /** Wall-clock epoch ms against which an HTTP-date `Retry-After` is measured. */
  nowMs?: number | undefined;
}

/** The decoded fields of an error answer, before redaction. */
export type DecodedError = Omit<ApiErrorInit, 'redactor' | 'cause'>;

/** Longest body excerpt quoted in a message made up for a non-JSON body. */
const SNIPPET_LENGTH = 200;

/**
 * Turns any error answer into the typed {@link ApiError} subclass for its status. Understands the
 * canonical envelope, `{"error":{...}}`, `kind` for `code`, RFC 9457 problem+json and non-JSON
 * proxy pages. Never throws.
 * @example
 * throw decodeApiError({ status: 409, headers, bodyText }, { redactor });
 */
export function decodeApiError(response: ErrorResponse, options: DecodeErrorOptions = {}): ApiError {
  return ApiError.from({ ...decodeErrorBody(response, options.nowMs), redactor: options.redactor });
}

/** The fields `decodeApiError` builds its error from (unredacted); never throws. */
export function decodeErrorBody(response: ErrorResponse, nowMs: number = Date.now()): DecodedError {
  const status = Number.isInteger(response.status) ? response.status : 0;
  const headers = lowercase(response.headers ?? {});
  const bodyText = typeof response.bodyText === 'string' ? response.bodyText : '';
  const base = {
    status,
    headers,
    rawBody: bodyText,
    retryAfterMs: safe(() => parseRetryAfter(headers, nowMs)),
  };
  const headerRequestId = headers['request-id'] ?? headers['x-request-id'];
  try {
    const contentType = (response.contentType ?? headers['content-type'] ?? '').toLowerCase();
    const parsed = parseJson(bodyText, contentType);
    const fields = isRecord(parsed)
      ? contentType.includes('problem+json') || looksLikeProblem(parsed)
        ? fromProblem(parsed, status)
        : fromEnvelope(parsed, status)
      : typeof parsed === 'string' && parsed.trim() !== ''
        ? { type: errorTypeForStatus(status), message: parsed.trim() }
        : undefined;
    const decoded = fields ?? fromText(bodyText, status, contentType, parsed !== undefined);
    return { ...base, ...decoded, requestId: decoded.requestId ?? headerRequestId };
  } catch {
    return { ...base, type: errorTypeForStatus(status), message: `HTTP ${status}.`, requestId: headerRequestId };
  }
}

type Fields = Omit<DecodedError, 'status' | 'headers' | 'rawBody' | 'retryAfterMs'>;

/** `{type, code, param, message, doc_url, request_id, errors}`, `{error:{...}}`, `{kind, ...}`. */
function fromEnvelope(body: Record<string, unknown>, status: number): Fields | undefined {
  let src = body;
  let code: string | undefined;
  let message: string | undefined;
  if (isRecord(body.error)) {
    src = { ...body, ...body.error };
  } else if (typeof body.error === 'string') {
    // `{"error": "not_found", "message": "..."}` names a code; `{"error": "Unauthorized"}` is the message.
    if (str(body.message) !== undefined && /^[a-z][a-z0-9_]*$/.test(body.error)) code = body.error;
    else message = body.error;
  }
  code = str(src.code) ?? str(src.kind) ?? str(src.error_code) ?? code;
  message = str(src.message) ?? str(src.detail) ?? str(src.error_description) ?? str(src.title) ?? message;
  const errors = details(src.errors);
  if (message === undefined && code === undefined && errors.length === 0) return undefined;
  const rawType = str(src.type);
  return {
    type: rawType !== undefined && isTypeWord(rawType) ? (rawType as ErrorType) : errorTypeForStatus(status),
    code,
    param: str(src.param),
    message: message ?? errors[0]?.message ?? `HTTP ${status} (${code}).`,
    docUrl: str(src.doc_url) ?? str(src.docUrl) ?? (rawType !== undefined && isHttpUrl(rawType) ? rawType : undefined),
    requestId: str(src.request_id) ?? str(src.requestId),
    errors,
  };
}

/** RFC 9457: `type` URI, `title`, `detail`, `status`, extension members (`code`, `errors`, ...). */
function fromProblem(problem: Record<string, unknown>, status: number): Fields {
  const typeUri = str(problem.type);
  const title = str(problem.title);
  const detail = str(problem.detail);
  const errors = details(problem.errors ?? problem['invalid-params'] ?? problem.invalid_params);
  return {
    type: typeUri !== undefined && isTypeWord(typeUri) ? (typeUri as ErrorType) : errorTypeForStatus(status),
    code: str(problem.code) ?? str(problem.kind) ?? codeFromUri(typeUri),
    param: str(problem.param) ?? (errors.length === 1 ? errors[0]?.param : undefined),
    message: detail ?? title ?? errors[0]?.message ?? `HTTP ${status}.`,
    docUrl: str(problem.doc_url) ?? (typeUri !== undefined && isHttpUrl(typeUri) ? typeUri : undefined),
    requestId: str(problem.request_id) ?? str(problem.requestId),
    errors,
  };
}

/** A proxy page, plain text, an empty body or JSON of no known shape: describe it with a snippet. */
function fromText(bodyText: string, status: number, contentType: string, wasJson: boolean): Fields {
  const phrase = REASON_PHRASES[status];
  const head = `HTTP ${status}${phrase ? ` ${phrase}` : ''}`;
  const html = !wasJson && (contentType.includes('html') || /^\s*<(!doctype|html|head|body)/i.test(bodyText));
  const text = html ? htmlToText(bodyText) : bodyText.replace(/\s+/g, ' ').trim();
  const what = wasJson ? 'an unrecognized JSON error body' : `a non-JSON response (${contentType.split(';')[0]?.trim() || 'no content type'})`;
  return {
    type: errorTypeForStatus(status),
    message: text === '' ? `${head} with an empty body.` : `${head}: ${what}: ${truncate(text, SNIPPET_LENGTH)}`,
  };
}

function parseJson(text: string, contentType: string): unknown {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  if (!contentType.includes('json') && !/^[{["]/.test(trimmed)) return undefined;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    return undefined;
  }
}

function looksLikeProblem(body: Record<string, unknown>): boolean {
  return body.message === undefined && body.error === undefined && (body.title !== undefined || body.detail !== undefined) &&
    (typeof body.status === 'number' || (typeof body.type === 'string' && !isTypeWord(body.type)));
}

function details(value: unknown): ApiErrorDetail[] {
  if (!Array.isArray(value)) return [];
  const out: ApiErrorDetail[] = [];
  for (const item of value) {
    if (typeof item === 'string') {
      out.push({ message: item });
    } else if (isRecord(item)) {
      const param = str(item.param) ?? str(item.name) ?? str(item.field) ?? str(item.pointer) ?? path(item.path);
      const code = str(item.code) ?? str(item.kind);
      const message = str(item.message) ?? str(item.reason) ?? str(item.detail) ?? code ?? 'Invalid value.';
      out.push({ code, message, param });
    }
  }
  return out;
}

function path(value: unknown): string | undefined {
  return Array.isArray(value) && value.length > 0 ? value.map(String).join('.') : str(value);
}

/** `https://docs.example/errors#claim_held` or `/problems/claim-held` → `claim_held`. */
function codeFromUri(uri: string | undefined): string | undefined {
  if (uri === undefined || uri === 'about:blank' || isTypeWord(uri)) return undefined;
  const last = uri.includes('#') ? uri.slice(uri.lastIndexOf('#') + 1) : uri.replace(/\/+$/, '').split('/').pop();
  return last && /^[A-Za-z][A-Za-z0-9_-]*$/.test(last) ? last.replace(/-/g, '_').toLowerCase() : undefined;
}

function isTypeWord(value: string): boolean {
  return /^[a-z][a-z0-9_]*$/.test(value);
}

function isHttpUrl(value: string): boolean {
  return /^https?:\/\//i.test(value);
}

function str(value: unknown): string | undefined {
  if (typeof value === 'string') return value === '' ? undefined : value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function lowercase(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = String(value);
  return out;
}

function htmlToText(html: string): string {
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1];
  const body = html
    .replace(/<(script|style|head)[^>]*>[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]+>/g, ' ');
  const text = decodeEntities(body).replace(/\s+/g, ' ').trim();
  const cleanTitle = title === undefined ? '' : decodeEntities(title).replace(/\s+/g, ' ').trim();
  return cleanTitle !== '' && !text.startsWith(cleanTitle) ? `${cleanTitle} — ${text}`.trim() : text;
}

function decodeEntities(text: string): string {
  return text
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&apos;/g, "'")
    .replace(/&amp;/g, '&');
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function safe<T>(fn: () => T): T | undefined {
  try {
    return fn();
  } catch {
    return undefined;
  }
}

const REASON_PHRASES: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  413: 'Content Too Large',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};
