import { openapiDocument } from '../generated/openapi-document.js';

/** What the router knows about one operation, read from the bundled spec. */
export interface RouteSpec {
  operationId: string;
  method: string;
  template: string;
  segments: string[];
  /** `x-permission` of the operation; `undefined` for the test controls. */
  permission: string | undefined;
  isControl: boolean;
  /** Path and query parameters whose schema is an integer (sent as strings, validated as numbers). */
  integerParams: Set<string>;
  /** Header parameters the operation declares, in the spec's spelling. */
  headerParams: string[];
  hasBody: boolean;
}

type Json = Record<string, unknown>;

function resolve(value: unknown): Json {
  let node = value as Json;
  while (node && typeof node.$ref === 'string') {
    node = (node.$ref as string)
      .replace(/^#\//, '')
      .split('/')
      .reduce<Json>((at, part) => at[part] as Json, openapiDocument as Json);
  }
  return node;
}

function isIntegerSchema(schema: unknown): boolean {
  return resolve(schema).type === 'integer';
}

/** Every operation of the spec, in document order. */
export const routeSpecs: RouteSpec[] = Object.entries(openapiDocument.paths).flatMap(([template, item]) =>
  Object.entries(item).map(([method, operation]) => {
    const parameters = ((operation.parameters as unknown[]) ?? []).map(resolve);
    return {
      operationId: operation.operationId,
      method: method.toUpperCase(),
      template,
      segments: template.split('/').slice(1),
      permission: operation['x-permission'] as string | undefined,
      isControl: template.startsWith('/_control'),
      integerParams: new Set(
        parameters.filter((p) => p.in !== 'header' && isIntegerSchema(p.schema)).map((p) => p.name as string),
      ),
      headerParams: parameters.filter((p) => p.in === 'header').map((p) => p.name as string),
      hasBody: operation.requestBody !== undefined,
    };
  }),
);
