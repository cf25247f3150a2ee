import { operationList, type OperationId } from '@leasehold/protocol';

/** What the router knows about one operation: the generated operation metadata, in the shape routing reads. */
export interface RouteSpec {
  operationId: OperationId;
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
  /** Whether the operation takes an `Idempotency-Key` (required or optional). */
  takesIdempotencyKey: boolean;
}

/** Every operation of the spec, in document order (from `@leasehold/protocol`'s generated metadata). */
export const routeSpecs: RouteSpec[] = operationList.map((op) => ({
  operationId: op.operationId,
  method: op.method,
  template: op.path,
  segments: op.path.split('/').slice(1),
  permission: op.permission ?? undefined,
  isControl: op.control,
  integerParams: new Set([...op.pathParams, ...op.queryParams].filter((p) => p.integer === true).map((p) => p.name)),
  headerParams: op.headerParams.map((p) => p.name),
  hasBody: op.body !== 'none',
  takesIdempotencyKey: op.idempotencyKey !== 'none',
}));
