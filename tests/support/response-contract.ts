import { listOperations, resolveRef, schemaErrors, type Operation, type Response as SpecResponse } from './spec-validator.js';

/** What a test observed of one answer. */
export interface ObservedResponse {
  status: number;
  headers: Headers;
  /** Parsed JSON body (the text of a `text/event-stream`), or `undefined` for an empty body. */
  body: unknown;
}

const byId = new Map<string, Operation>(listOperations().map(({ operation }) => [operation.operationId, operation]));

/** Every (operationId, status) pair a test run has validated, to prove coverage. */
export const observedStatuses = new Map<string, Set<string>>();

/**
 * Checks an answer against the bundled spec: the status is declared (or falls to `default`),
 * the body validates against that status's schema, every required header is present, and every
 * answer carries `Request-Id` (equal to `request_id` in error bodies) and `Date`.
 * Returns the problems; empty when the answer honours the contract.
 */
export function contractProblems(operationId: string, response: ObservedResponse): string[] {
  const operation = byId.get(operationId);
  if (!operation) return [`unknown operation ${operationId}`];
  const status = String(response.status);
  const declared = operation.responses[status] ?? operation.responses.default;
  if (!declared) return [`${operationId} does not declare ${status}`];
  if (!operation.responses[status]) return [`${operationId} answered ${status}, which the spec does not list`];
  observedStatuses.set(operationId, (observedStatuses.get(operationId) ?? new Set()).add(status));
  const spec = resolveRef<SpecResponse>(declared);
  const problems: string[] = [];
  const requestId = response.headers.get('request-id');
  if (!requestId) problems.push('missing Request-Id header');
  if (!response.headers.get('date')) problems.push('missing Date header');
  for (const [name, ref] of Object.entries(spec.headers ?? {})) {
    const header = resolveRef<{ required?: boolean; schema: unknown }>(ref);
    const value = response.headers.get(name);
    if (value === null) {
      if (header.required) problems.push(`missing required header ${name}`);
      continue;
    }
    const typed = (header.schema as { type?: string }).type === 'integer' ? Number(value) : value;
    problems.push(...schemaErrors(header.schema, typed).map((e) => `header ${name}: ${e}`));
  }
  const eventStream = spec.content?.['text/event-stream'];
  if (eventStream && (response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    problems.push(...schemaErrors(eventStream.schema, response.body).map((e) => `body ${e}`));
    return problems;
  }
  const media = spec.content?.['application/json'];
  if (media) {
    problems.push(...schemaErrors(media.schema, response.body).map((e) => `body ${e}`));
    if (response.status >= 400 && (response.body as { request_id?: string })?.request_id !== requestId) {
      problems.push('request_id differs from the Request-Id header');
    }
  } else if (response.body !== undefined) {
    problems.push(`${status} must have no body`);
  }
  return problems;
}

/** Reads a fetch `Response` into an `ObservedResponse`. */
export async function observe(response: Response): Promise<ObservedResponse> {
  const text = await response.text();
  // Server-sent events are text; everything else the API answers is JSON.
  const isText = (response.headers.get('content-type') ?? '').startsWith('text/event-stream');
  return { status: response.status, headers: response.headers, body: text === '' ? undefined : isText ? text : (JSON.parse(text) as unknown) };
}
