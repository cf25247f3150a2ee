/** A request as the HTTP layer sees it: runtime-neutral plain values. */
export interface PlainRequest {
  method: string;
  /** Path and query as sent, e.g. `/api/v1/spaces/…/claims?prefix=a`. */
  url: string;
  /** Header names in lower case; repeated headers joined with `, `. */
  headers: Record<string, string | undefined>;
  /** The raw body, or `undefined` when the request has none. */
  body: Uint8Array | undefined;
  /**
   * What the request reached before `url`: its origin, plus any prefix the adapter already
   * stripped (`http://127.0.0.1:4010` from node:http, the mock's base URL from MSW). The server
   * derives the API base URL it names in `/openapi.json` and `doc_url` from it.
   */
  baseUrl?: string;
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
