import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

/** The bundled OpenAPI document, as committed in spec/dist/openapi.json. */
export const bundledSpec = JSON.parse(
  readFileSync(fileURLToPath(new URL('../../spec/dist/openapi.json', import.meta.url)), 'utf8'),
) as OpenApiDocument;

/** The subset of an OpenAPI 3.1 document the test helpers read. */
export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components: Record<string, Record<string, unknown>>;
  [key: string]: unknown;
}

/** One operation of the document, loosely typed. */
export interface Operation {
  operationId: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: Array<Record<string, string[]>>;
  parameters?: Array<Ref | Parameter>;
  requestBody?: { required?: boolean; content: Record<string, MediaType> };
  responses: Record<string, Ref | Response>;
  [key: string]: unknown;
}

/** A `$ref` object. */
export interface Ref {
  $ref: string;
}
/** A parameter object. */
export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: unknown;
  example?: unknown;
}
/** A media type object. */
export interface MediaType {
  schema: unknown;
  example?: unknown;
  examples?: Record<string, { value: unknown }>;
}
/** A response object. */
export interface Response {
  description: string;
  headers?: Record<string, Ref | { schema: unknown; required?: boolean }>;
  content?: Record<string, MediaType>;
}

/** Follows a local `#/...` JSON pointer into the bundled document. */
export function resolveRef<T>(value: T | Ref): T {
  let current: unknown = value;
  while (current && typeof current === 'object' && '$ref' in current) {
    const pointer = (current as Ref).$ref.replace(/^#\//, '').split('/');
    current = pointer.reduce<unknown>(
      (node, part) => (node as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')],
      bundledSpec,
    );
  }
  return current as T;
}

/** Every operation of the bundled spec with its method and path template. */
export function listOperations(): Array<{ method: string; path: string; operation: Operation }> {
  return Object.entries(bundledSpec.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
      .map(([method, operation]) => ({ method, path, operation })),
  );
}

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
// ajv-formats is CommonJS: its function is the module itself and also its `default` member.
addFormatsModule.default(ajv);
ajv.addSchema({ ...bundledSpec, $id: 'leasehold' } as object);
/** Compiled validators by the schema's JSON, so equal schemas built per call compile once. */
const cache = new Map<string, ValidateFunction>();

function compile(text: string): ValidateFunction {
  const rebased = JSON.parse(text.replace(/"#\//g, '"leasehold#/')) as object;
  const validate: ValidateFunction = ajv.compile(rebased);
  cache.set(text, validate);
  return validate;
}

/** Validates `value` against a schema of the bundled spec (inline or `$ref`); returns the errors, empty when valid. */
export function schemaErrors(schema: unknown, value: unknown): string[] {
  const text = JSON.stringify(schema);
  const validate = cache.get(text) ?? compile(text);
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
}
