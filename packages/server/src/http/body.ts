import { MAX_JSON_DEPTH, describeJsonProblem, jsonProblem } from '../engine/index.js';
import { HttpError } from './http-error.js';
import type { PlainRequest } from './plain.js';

const decoder = new TextDecoder('utf-8', { fatal: true });

function isJsonMediaType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  if (contentType === 'application/json') return true;
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

/** True when a header value holds a comma outside a quoted string (so several values). */
function hasSeveralValues(value: string): boolean {
  if (!value.includes(',')) return false;
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === 92 /* \\ */ && quoted) i++;
    else if (c === 34 /* " */) quoted = !quoted;
    else if (c === 44 /* , */ && !quoted) return true;
  }
  return false;
}

/**
 * Reads the JSON body of a request: 413 past 1 MiB, 415 for another content type, 400 for
 * bytes that are not UTF-8 JSON, for JSON nested deeper than `MAX_JSON_DEPTH` (`json_too_deep`)
 * and for numbers beyond the range of a double (`invalid_json`) — before any handler runs, so
 * nothing is written that a later answer could not carry. An empty body reads as `undefined`.
 */
export function parseJsonBody(request: PlainRequest): unknown {
  if (request.bodyTooLarge) throw new HttpError(413, 'body_too_large', 'The request body exceeds 1 MiB.');
  const body = request.body;
  if (!body || body.length === 0) return undefined;
  const contentType = request.headers['content-type'];
  if (contentType !== undefined && hasSeveralValues(contentType)) {
    // Adapters join a repeated header with ", " (as Fetch does); one media type holds no comma.
    throw new HttpError(400, 'ambiguous_header', 'Send Content-Type exactly once: this request carries several values.', 'Content-Type');
  }
  if (!isJsonMediaType(contentType)) {
    throw new HttpError(415, 'unsupported_media_type', 'Send the body as application/json.', 'Content-Type');
  }
  let text: string;
  try {
    text = decoder.decode(body);
  } catch {
    throw new HttpError(400, 'invalid_json', 'The body is not valid UTF-8.');
  }
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    // V8's parse messages quote the input, which may hold a token: never echo them.
    throw new HttpError(400, 'invalid_json', 'The body is not valid JSON.');
  }
  const problem = jsonProblem(value, MAX_JSON_DEPTH);
  if (problem !== undefined) {
    const field = typeof problem.path[0] === 'string' ? problem.path[0] : undefined;
    const code = problem.reason === 'too_deep' ? 'json_too_deep' : 'invalid_json';
    throw new HttpError(400, code, describeJsonProblem(problem, 'The body', MAX_JSON_DEPTH), field);
  }
  return value;
}
