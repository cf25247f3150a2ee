import type { ApiOperationId, OperationBody, OperationHeaders, OperationPathParams, OperationQuery, operations } from '@leasehold/protocol';

/** The operations the client calls: every API operation of the spec (the `/_control` test levers are not the client's). */
export type ClientOperationId = ApiOperationId;

/** The headers a caller supplies for an operation: the spec's, less `Idempotency-Key` (the request function owns it). */
type CallerHeaders<Id extends ClientOperationId> = Omit<OperationHeaders<Id>, 'Idempotency-Key'>;

type RequiredKeys<T> = { [K in keyof T]-?: undefined extends T[K] ? never : K }[keyof T];

type PathPart<Id extends ClientOperationId> = [keyof OperationPathParams<Id>] extends [never]
  ? { path?: undefined }
  : { path: OperationPathParams<Id> };

type QueryPart<Id extends ClientOperationId> = [keyof OperationQuery<Id>] extends [never] ? { query?: undefined } : { query?: OperationQuery<Id> };

type HeaderPart<Id extends ClientOperationId> = [keyof CallerHeaders<Id>] extends [never]
  ? { headers?: undefined }
  : [RequiredKeys<CallerHeaders<Id>>] extends [never]
    ? { headers?: CallerHeaders<Id> }
    : { headers: CallerHeaders<Id> };

type BodyPart<Id extends ClientOperationId> = [OperationBody<Id>] extends [undefined]
  ? { body?: undefined }
  : undefined extends OperationBody<Id>
    ? { body?: OperationBody<Id> }
    : { body: OperationBody<Id> };

/**
 * What one call of operation `Id` sends, typed from the spec: its path parameters, query,
 * headers and JSON body, each required exactly when the spec requires it (openapi-fetch's
 * `params`, keyed by operationId). A wrong or missing parameter, or a wrong body, does not compile.
 * @example
 * const input: OperationInput<'renewSpaceClaim'> = { path: { spaceId, key }, body: { token, leaseSeconds: 30 } };
 */
export type OperationInput<Id extends ClientOperationId> = PathPart<Id> & QueryPart<Id> & HeaderPart<Id> & BodyPart<Id>;

type SuccessStatus = 200 | 201 | 202 | 204;
type JsonOf<R> = R extends { content: { 'application/json': infer J } } ? J : undefined;

/** The body of operation `Id`'s success answers (a union over its 2xx statuses; `undefined` for an empty 204). */
export type OperationAnswer<Id extends ClientOperationId> = {
  [S in keyof operations[Id]['responses'] & SuccessStatus]: JsonOf<operations[Id]['responses'][S]>;
}[keyof operations[Id]['responses'] & SuccessStatus];
