/** A request as the HTTP layer sees it: runtime-neutral plain values. */
export interface PlainRequest {
  method: string;
  /** Path and query as sent, e.g. `/api/v1/spaces/…/claims?prefix=a`. */
  url: string;
  /** Header names in lower case; repeated headers joined with `, `. */
  headers: Record<string, string | undefined>;
  /** The raw body, or `undefined` when the request has none. */
  body: Uint8Array | undefined;
  /** True when the adapter stopped reading because the body passed the size limit. */
  bodyTooLarge?: boolean;
}

/** An answer of the HTTP layer; `drop` asks the adapter to cut the connection instead of answering. */
export interface PlainResponse {
  status: number;
  headers: Record<string, string>;
  /** The serialized JSON body, or `undefined` for an empty body. */
  body: string | undefined;
  drop?: boolean;
}

/** The largest request body accepted, 1 MiB. */
export const MAX_BODY_BYTES = 1024 * 1024;
