/** One path, query or header parameter of an operation, as the spec declares it. */
export interface ParamMeta {
  /** The parameter's name in the spec's spelling (`spaceId`, `Idempotency-Key`). */
  readonly name: string;
  /** Path and query only: the schema is an integer (sent as text, validated as a number). */
  readonly integer?: boolean;
  /** Query and header only: the parameter must be sent. */
  readonly required?: boolean;
}

/** What every package needs to know about one operation, generated from the spec (`scripts/gen.mjs`). */
export interface OperationMeta {
  /** `GET`, `POST`, … (upper case). */
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The path template (`/v1/spaces/{spaceId}/claims/{key}`). */
  readonly path: string;
  /** Path parameters, in template order. */
  readonly pathParams: readonly ParamMeta[];
  /** Query parameters. */
  readonly queryParams: readonly ParamMeta[];
  /** Header parameters. */
  readonly headerParams: readonly ParamMeta[];
  /** The permission a key needs (`x-permission`); `null` for the test controls, which take no key. */
  readonly permission: string | null;
  /** Whether the operation takes a JSON body. */
  readonly body: 'required' | 'optional' | 'none';
  /** Whether the operation takes an `Idempotency-Key`. */
  readonly idempotencyKey: 'required' | 'optional' | 'none';
  /** A test control under `/_control` (served only behind a flag; faults never hit it). */
  readonly control: boolean;
}
