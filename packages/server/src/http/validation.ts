import * as z from 'zod';
import * as validators from '../generated/zod.js';
import { ttlRefusal, type ErrorCode } from '../engine/index.js';
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
  /** The operation's header parameters in lower case (how adapters name request headers). */
  headerNames: string[];
  /** What `query` and `headers` make of no values at all (their defaults), or undefined when none is valid. */
  emptyQuery: Record<string, unknown> | undefined;
  emptyHeaders: Record<string, unknown> | undefined;
}

/** What `schema` makes of `{}` when it accepts it (a schema's defaults), else undefined. */
function parsedEmpty(schema: z.ZodType | undefined): Record<string, unknown> | undefined {
  if (schema === undefined) return {};
  const result = schema.safeParse({});
  return result.success ? Object.freeze(result.data as Record<string, unknown>) : undefined;
}

/** The generated schemas by name; each is built on its first use (scripts/gen.mjs, lazySchemas). */
const generated = validators as unknown as Record<string, (() => z.ZodType) | undefined>;
const schemaNamed = (name: string): z.ZodType | undefined => generated[name]?.();
const cache = new Map<string, OperationValidators>();

/** Bodies and queries reject unknown fields (`additionalProperties: false` in the spec), as a typo must not pass silently. */
function strict(schema: z.ZodType | undefined): z.ZodType | undefined {
  return schema instanceof z.ZodObject ? schema.strict() : schema;
}

function validatorsFor(route: RouteSpec): OperationValidators {
  const operationId = route.operationId;
  let found = cache.get(operationId);
  if (!found) {
    const base = `z${operationId[0]!.toUpperCase()}${operationId.slice(1)}`;
    const query = strict(schemaNamed(`${base}Query`));
    const headers = schemaNamed(`${base}Headers`);
    found = {
      path: schemaNamed(`${base}Path`),
      query,
      headers,
      body: strict(schemaNamed(`${base}Body`)),
      headerNames: route.headerParams.map((name) => name.toLowerCase()),
      emptyQuery: parsedEmpty(query),
      emptyHeaders: parsedEmpty(headers),
    };
    cache.set(operationId, found);
  }
  return found;
}

/** No prefix for a problem's `param` (shared: `describe` only reads it). */
const NO_PREFIX: readonly string[] = Object.freeze([]);

function coerceIntegers(values: Record<string, string>, integers: Set<string>): Record<string, unknown> {
  // Nothing to coerce: the values themselves (they are this request's own object, never shared).
  if (integers.size === 0) return values;
  const out: Record<string, unknown> = { ...values };
  for (const name of integers) {
    const value = values[name];
    if (value !== undefined && /^-?\d{1,16}$/.test(value)) out[name] = Number(value);
  }
  return out;
}

/** A problem, and whether it is a value that is missing rather than malformed. */
type Problem = ErrorDetail & { missing?: boolean };

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let at = value;
  for (const key of path) at = at !== null && typeof at === 'object' ? (at as Record<PropertyKey, unknown>)[key] : undefined;
  return at;
}

function describe(issue: z.core.$ZodIssue, prefix: readonly string[], value: unknown): Problem {
  const path = [...prefix, ...issue.path.map(String)];
  const param = path.join('.') || undefined;
  const missing = issue.code !== 'unrecognized_keys' && issue.path.length > 0 && valueAt(value, issue.path) === undefined;
  let message = issue.message;
  // A body that takes no fields (`additionalProperties: false`, no properties) is a record of
  // `never`: a field in it is unknown, said the way a strict object says it.
  if (issue.code === 'invalid_type' && issue.expected === 'never' && param) {
    return { code: 'unrecognized_keys', message: `Unknown field: ${path[path.length - 1]}.`, missing: false, param };
  }
  if (issue.code === 'unrecognized_keys') message = `Unknown field${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.join(', ')}.`;
  else if (missing && param) message = `${param} is required.`;
  else if (param) message = `${param}: ${issue.message}`;
  const detail: Problem = { code: issue.code, message, missing };
  if (issue.code === 'unrecognized_keys') detail.param = [...prefix, issue.keys[0]!].join('.');
  else if (param) detail.param = param;
  return detail;
}

function check(schema: z.ZodType | undefined, value: unknown, prefix: readonly string[], problems: Problem[]): unknown {
  if (!schema) return value;
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  for (const issue of result.error.issues) problems.push(describe(issue, prefix, value));
  return value;
}

/**
 * Inputs whose bad values have their own code, so a client can tell a bad token from a bad
 * field. Tokens are `invalid_token` even when missing, as the task page says; the others only
 * when malformed. Everything else is `invalid_request`.
 */
const codeByParam: Record<string, { code: ErrorCode; whenMissing: boolean }> = {
  token: { code: 'invalid_token', whenMissing: true },
  'X-Task-Claim': { code: 'invalid_token', whenMissing: true },
  'Spooler-Lease': { code: 'invalid_token', whenMissing: true },
  ttl: { code: 'invalid_ttl', whenMissing: false },
  'Idempotency-Key': { code: 'invalid_idempotency_key', whenMissing: false },
  'If-Match': { code: 'invalid_if_match', whenMissing: false },
};

/**
 * Validates path, query, headers and body of a request with the validators generated from the
 * spec. Every problem is listed in `errors`; the first names `param`.
 */
export function validateRequest(
  route: RouteSpec,
  input: {
    path: Record<string, string>;
    /** The query string without its `?` (`''` for none). */
    search: string;
    headers: Record<string, string | undefined>;
    body: unknown;
  },
): ValidatedInput {
  const v = validatorsFor(route);
  const problems: Problem[] = [];
  const query: Record<string, string> = {};
  if (input.search !== '') {
    for (const [name, value] of new URLSearchParams(input.search)) query[name] = value;
    if (!v.query) {
      for (const name of Object.keys(query)) problems.push({ code: 'unrecognized_keys', message: `Unknown query parameter: ${name}.`, param: name });
    }
  }
  const headers: Record<string, string> = {};
  const headerParams = route.headerParams;
  let headerCount = 0;
  for (let i = 0; i < headerParams.length; i++) {
    const value = input.headers[v.headerNames[i]!];
    if (value !== undefined) {
      headers[headerParams[i]!] = value;
      headerCount++;
    }
  }
  let body = input.body;
  if (route.hasBody && body === undefined) {
    if (requiresBody(v.body)) problems.push({ code: 'invalid_type', message: 'This operation needs a JSON body.' });
    else body = {};
  }
  const validated: ValidatedInput = {
    path: check(v.path, coerceIntegers(input.path, route.integerParams), NO_PREFIX, problems) as Record<string, unknown>,
    // No values where no values are valid: the schema's answer for `{}`, known already (a copy).
    query:
      input.search === '' && v.emptyQuery !== undefined ? { ...v.emptyQuery }
      : (check(v.query, coerceIntegers(query, route.integerParams), NO_PREFIX, problems) as Record<string, unknown>),
    headers:
      headerCount === 0 && v.emptyHeaders !== undefined ? { ...v.emptyHeaders }
      : (check(v.headers, headers, NO_PREFIX, problems) as Record<string, unknown>),
    body: route.hasBody && body !== undefined ? check(v.body, body, NO_PREFIX, problems) : undefined,
  };
  if (problems.length === 0) return validated;
  // A write without its precondition is 428, not a malformed request; the engine answers it after
  // its 404 check, so the problem the generated validator reports is dropped here.
  const reported = headers['If-Match'] === undefined ? problems.filter((p) => p.param !== 'If-Match') : problems;
  if (reported.length > 0) {
    const first = reported[0]!;
    const special = first.param === undefined ? undefined : codeByParam[first.param];
    const code: ErrorCode = special && (special.whenMissing || !first.missing) ? special.code : 'invalid_request';
    // A bad `ttl` says what the engine says (what it accepts, that nothing was renewed, and that leaving it out renews).
    const message = code === 'invalid_ttl' ? ttlRefusal(valueAt(body, ['ttl'])) : first.message;
    const details = reported.map(({ missing: _missing, ...detail }) => (detail.param === 'ttl' && code === 'invalid_ttl' ? { ...detail, message } : detail));
    throw new HttpError(400, code, message, first.param, details);
  }
  return validated;
}

function requiresBody(schema: z.ZodType | undefined): boolean {
  return schema !== undefined && !schema.safeParse({}).success;
}
