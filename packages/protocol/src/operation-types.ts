import type { operations } from './generated/openapi.js';

/** `T` unless it is `never`/`undefined` (an operation without that part), then `Empty`. */
type Present<T, Empty> = [NonNullable<T>] extends [never] ? Empty : NonNullable<T>;

/** The path parameters of an operation (`{ spaceId: string; key: string }`), `{}` when it has none. */
export type OperationPathParams<Id extends keyof operations> = Present<operations[Id]['parameters']['path'], Record<never, never>>;

/** The query parameters of an operation, `{}` when it has none. */
export type OperationQuery<Id extends keyof operations> = Present<operations[Id]['parameters']['query'], Record<never, never>>;

/** The header parameters of an operation in the spec's spelling (`If-Match`), `{}` when it has none. */
export type OperationHeaders<Id extends keyof operations> = Present<operations[Id]['parameters']['header'], Record<never, never>>;

/**
 * The JSON request body of an operation: the schema's type, `| undefined` when the body is
 * optional, `undefined` when the operation takes none.
 */
export type OperationBody<Id extends keyof operations> = operations[Id] extends { requestBody: { content: { 'application/json': infer B } } }
  ? B
  : operations[Id] extends { requestBody?: { content: { 'application/json': infer B } } }
    ? B | undefined
    : undefined;

type JsonOf<R> = R extends { content: { 'application/json': infer J } } ? J : undefined;

/** The JSON body an operation answers with for `Status` (`undefined` for an empty answer). */
export type OperationResponseBody<Id extends keyof operations, Status extends keyof operations[Id]['responses']> = JsonOf<
  operations[Id]['responses'][Status]
>;
