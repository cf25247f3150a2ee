import { readFileSync } from 'node:fs';
import * as z from 'zod';
import { ALL_PERMISSIONS, type KeyConfig } from '../../engine/index.js';

const keySchema = z.strictObject({
  apiKey: z.string().regex(/^[\x21-\x7e]{1,200}$/, 'must be 1–200 printable ASCII characters without spaces'),
  credentialId: z.string().min(1).optional(),
  accountId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1–64 letters, digits, _ or -'),
  permissions: z.array(z.enum(ALL_PERMISSIONS as [string, ...string[]])).optional(),
  spaces: z.union([z.literal('*'), z.array(z.uuid({ error: 'must be a space UUID' }))], { error: 'must be "*" or an array of space UUIDs' }).optional(),
  blocked: z.boolean().optional(),
  expired: z.boolean().optional(),
  expiresAt: z.int().nonnegative().nullable().optional(),
  rateLimitPerSecond: z.int().positive().nullable().optional(),
});
const keysSchema = z.array(keySchema).min(1, 'must list at least one key');
const wrappedSchema = z.strictObject({ keys: keysSchema });

/** `[0].permissions[1]` / `keys[0].apiKey`: a JSON path as a person reads it. */
function pathText(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : `${out === '' ? '' : '.'}${String(part)}`;
  return out === '' ? '(the file)' : out;
}

/** The value at `path` in `root`, as JSON (shortened), or `undefined` when there is none. */
function valueAt(root: unknown, path: readonly PropertyKey[]): string | undefined {
  let value: unknown = root;
  for (const part of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[part];
  }
  if (value === undefined) return undefined;
  // An API key is a secret even when it is malformed: its length, never its text.
  if (path.at(-1) === 'apiKey' && typeof value === 'string') return `a ${value.length}-character string (not shown)`;
  const json = JSON.stringify(value);
  return json.length > 80 ? `${json.slice(0, 77)}...` : json;
}

/** One line per problem: the field's path, the value found there, what is wrong and what is allowed. */
function describeIssue(issue: z.core.$ZodIssue, root: unknown): string {
  const where = pathText(issue.path);
  const found = valueAt(root, issue.path);
  const value = found === undefined ? 'is missing' : `is ${found}`;
  switch (issue.code) {
    case 'invalid_value':
      return `${where} ${value}, not one of: ${issue.values.map((allowed) => JSON.stringify(allowed)).join(', ')}`;
    case 'unrecognized_keys': {
      const fields = Object.keys(issue.path.length === 0 && !Array.isArray(root) ? wrappedSchema.shape : keySchema.shape);
      return `${where} has unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((key) => JSON.stringify(key)).join(', ')} (known: ${fields.join(', ')})`;
    }
    case 'invalid_type':
      return found === undefined ? `${where} is missing (expected ${issue.expected})` : `${where} ${value}, expected ${issue.expected}`;
    default:
      return `${where} ${value}: ${issue.message}`;
  }
}

/**
 * Reads a keys file: a JSON array of keys, or `{ "keys": [...] }`. Each key sets its account,
 * permissions, spaces, `blocked`, `expired`/`expiresAt` and `rateLimitPerSecond`. A file that
 * does not fit is refused with one line per problem: the field's path, the value found there and
 * the allowed values (`[0].permissions[1] is "tasks.writ", not one of: "claims.read", …`).
 */
export function loadKeysFile(path: string): KeyConfig[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    // V8 quotes the text around a syntax error, which may be a key: keep only where it is.
    const message = (error as Error).message.replace(/, (?:\.\.\.)?".*$/s, ' (not valid JSON)');
    throw new Error(`${path}: ${message}`);
  }
  const schema = Array.isArray(parsed) ? keysSchema : wrappedSchema;
  const result = schema.safeParse(parsed);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `  ${describeIssue(issue, parsed)}`);
    throw new Error(`${path}: not a valid keys file (a JSON array of keys, or { "keys": [...] }):\n${problems.join('\n')}`);
  }
  const keys = Array.isArray(result.data) ? result.data : result.data.keys;
  return keys as KeyConfig[];
}
