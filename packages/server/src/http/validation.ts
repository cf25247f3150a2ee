import { z } from 'zod';
import * as validators from '../generated/zod.js';
import { HttpError, type ErrorDetail } from './http-error.js';
import type { RouteSpec } from './routes.js';

/** The validated inputs of one request, typed loosely; handlers narrow with the generated types. */
export interface ValidatedInput {
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  headers: Record<string, unknown>;
  body: unknown;
}

interface OperationValidators {
  path?: z.ZodType;
  query?: z.ZodType;
  headers?: z.ZodType;
  body?: z.ZodType;
}

const generated = validators as unknown as Record<string, z.ZodType | undefined>;
const cache = new Map<string, OperationValidators>();

/** Bodies and queries reject unknown fields (`additionalProperties: false` in the spec), as a typo must not pass silently. */
function strict(schema: z.ZodType | undefined): z.ZodType | undefined {
  return schema instanceof z.ZodObject ? schema.strict() : schema;
}

function validatorsFor(operationId: string): OperationValidators {
  let found = cache.get(operationId);
  if (!found) {
    const base = `z${operationId[0]!.toUpperCase()}${operationId.slice(1)}`;
    found = {
      path: generated[`${base}Path`],
      query: strict(generated[`${base}Query`]),
      headers: generated[`${base}Headers`],
      body: strict(generated[`${base}Body`]),
    };
    cache.set(operationId, found);
  }
  return found;
}

function coerceIntegers(values: Record<string, string>, integers: Set<string>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...values };
  for (const name of integers) {
    const value = values[name];
    if (value !== undefined && /^-?\d{1,16}$/.test(value)) out[name] = Number(value);
  }
  return out;
}

function describe(issue: z.core.$ZodIssue, prefix: string[]): ErrorDetail {
  const path = [...prefix, ...issue.path.map(String)];
  const param = path.join('.') || undefined;
  let message = issue.message;
  if (issue.code === 'unrecognized_keys') message = `Unknown field${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.join(', ')}.`;
  else if (param) message = `${param}: ${issue.message}`;
  const detail: ErrorDetail = { code: issue.code, message };
  if (issue.code === 'unrecognized_keys') detail.param = [...prefix, issue.keys[0]!].join('.');
  else if (param) detail.param = param;
  return detail;
}

function check(schema: z.ZodType | undefined, value: unknown, prefix: string[], problems: ErrorDetail[]): unknown {
  if (!schema) return value;
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  for (const issue of result.error.issues) problems.push(describe(issue, prefix));
  return value;
}

/**
 * Validates path, query, headers and body of a request with the validators generated from the
 * spec. Every problem is listed in `errors`; the first names `param`.
 */
export function validateRequest(
  route: RouteSpec,
  input: { path: Record<string, string>; query: URLSearchParams; headers: Record<string, string | undefined>; body: unknown },
): ValidatedInput {
  const v = validatorsFor(route.operationId);
  const problems: ErrorDetail[] = [];
  const query: Record<string, string> = {};
  for (const [name, value] of input.query) query[name] = value;
  const headers: Record<string, string> = {};
  for (const name of route.headerParams) {
    const value = input.headers[name.toLowerCase()];
    if (value !== undefined) headers[name] = value;
  }
  const validated: ValidatedInput = {
    path: check(v.path, coerceIntegers(input.path, route.integerParams), [], problems) as Record<string, unknown>,
    query: check(v.query, coerceIntegers(query, route.integerParams), [], problems) as Record<string, unknown>,
    headers: check(v.headers, headers, [], problems) as Record<string, unknown>,
    body: route.hasBody ? check(v.body, input.body ?? (requiresBody(v.body) ? undefined : {}), [], problems) : undefined,
  };
  if (problems.length > 0) {
    const first = problems[0]!;
    throw new HttpError(400, 'invalid_request', first.message, first.param, problems);
  }
  return validated;
}

function requiresBody(schema: z.ZodType | undefined): boolean {
  return schema !== undefined && !schema.safeParse({}).success;
}
